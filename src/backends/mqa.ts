import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../faults/catalogue';
import type { MlaConfig } from '../model/config';
import { latentWidth } from '../model/config';
import type { TensorProbe } from '../probes/probe';
import type { LayerInput, MlaBackend } from './backend';
import type { DeviceLinear, DeviceLayer } from './layer';
import { causalMask, linear, maskedSoftmax, onHost, oProj, pathScale, preAttention, reportedLse, stepScalars } from './shared';

export interface AbsorbedWeights {
  W_UK_T: tf.Tensor3D; // [N,P,L]
  W_UV: tf.Tensor3D; // [N,L,V]
}

/**
 * W_UK_T and W_UV from kv_b_proj as vLLM's process_weights_after_loading:
 * Wt = W.T.view(L, N, P+V); W_UK, W_UV = Wt.split([P, V], -1); W_UV.transpose(0, 1); W_UK.permute(1, 2, 0).
 * Element form: W_UK_T[h,p,l] = W[h(P+V)+p, l], W_UV[h,l,v] = W[h(P+V)+P+v, l]. With W stored
 * [out, in] the same values come from a view of W, without moving its 14.7M floats twice.
 */
export function absorbKvB(c: MlaConfig, kv_b: DeviceLinear): AbsorbedWeights {
  return tf.tidy(() => {
    const [N, P, V, L] = [c.num_attention_heads, c.qk_nope_head_dim, c.v_head_dim, c.kv_lora_rank];
    if (kv_b.layout === 'out_in') {
      const W3 = tf.reshape(kv_b.w, [N, P + V, L]); // [N,P+V,L]
      const W_UK_T = tf.slice(W3, [0, 0, 0], [N, P, L]) as tf.Tensor3D; // [N,P,L]
      const W_UV = tf.transpose(tf.slice(W3, [0, P, 0], [N, V, L]), [0, 2, 1]) as tf.Tensor3D; // [N,L,V]
      return { W_UK_T, W_UV };
    }
    const Wt3 = tf.reshape(kv_b.w, [L, N, P + V]); // W.T.view(L, N, P+V)
    const W_UK = tf.slice(Wt3, [0, 0, 0], [L, N, P]); // [L,N,P]
    const W_UV = tf.slice(Wt3, [0, 0, P], [L, N, V]); // [L,N,V]
    return { W_UK_T: tf.transpose(W_UK, [1, 2, 0]) as tf.Tensor3D, W_UV: tf.transpose(W_UV, [1, 0, 2]) as tf.Tensor3D }; // [N,P,L], [N,L,V]
  });
}

/**
 * Latent-absorbed MQA, as vLLM forward_mqa + _v_up_proj: W_UK folded into the query, one shared KV
 * head = the latent cache [kv_c_normed | k_pe] (V = its first L columns), W_UV applied after. All T
 * queries attend to their causal key sets, as FlashMLA's decode path does for short prefills.
 */
export class MqaBackend implements MlaBackend<tf.Tensor> {
  readonly name = 'mqa' as const;
  private readonly absorbed: AbsorbedWeights;

  constructor(private readonly layer: DeviceLayer, private readonly faults: FaultSet) {
    this.absorbed = absorbKvB(layer.config, layer.linear.kv_b_proj);
  }

  forward(input: LayerInput, probe: TensorProbe): Promise<Float32Array> {
    return onHost(() => this.step(input, probe));
  }

  private step(input: LayerInput, probe: TensorProbe): tf.Tensor2D {
    const c = this.layer.config;
    const T = input.positions.length;
    const [N, P, L, V] = [c.num_attention_heads, c.qk_nope_head_dim, c.kv_lora_rank, c.v_head_dim];
    const S = T; // no context: the keys are this step's own tokens
    const C = latentWidth(c);
    const scale = pathScale(c, this.faults);
    stepScalars(probe, 'mqa', T, scale, this.faults);
    const { q_nope, q_pe, kv_c_normed, kv_cache } = preAttention(this.layer, input, probe, this.faults);
    const W_UK_T = probe.tap('W_UK_T', this.absorbed.W_UK_T); // [N,P,L]
    const W_UV = probe.tap('W_UV', this.absorbed.W_UV); // [N,L,V]
    // Weight-derived checks (probe-only): k_nope ≡ kv_c_normed·W_UK_T[h]ᵀ, v ≡ kv_c_normed·W_UV[h].
    if (probe.wants('k_nope')) {
      const W_UK_rows = { w: tf.reshape(W_UK_T, [N * P, L]) as tf.Tensor2D, layout: 'out_in' as const, product: this.layer.linear.kv_b_proj.product };
      probe.tap('k_nope', tf.reshape(linear(kv_c_normed, W_UK_rows), [S, N, P])); // [S,N,P]
    }
    if (probe.wants('v')) {
      probe.tap('v', tf.transpose(tf.matMul(tf.expandDims(kv_c_normed, 0), W_UV), [1, 0, 2])); // [S,N,V]
    }

    const ql_nope = probe.tap('ql_nope', tf.transpose(tf.matMul(tf.transpose(q_nope, [1, 0, 2]), W_UK_T), [1, 0, 2])); // [T,N,L]
    const mqa_q = probe.tap('mqa_q', tf.concat([ql_nope, q_pe], -1)); // [T,N,L+R]

    // Queries of all heads packed as rows against the one KV head, the latent cache: [T·N, C]·[S, C]ᵀ.
    const logits2d = tf.mul(tf.matMul(tf.reshape(mqa_q, [T * N, C]), kv_cache, false, true), scale); // [T·N,S]
    const logits = probe.tap('logits', tf.reshape(logits2d, [T, N, S]), 't h s'); // [T,N,S]
    const mask = tf.expandDims(causalMask(input.positions, input.positions), 1); // [T,1,S]
    const { probs, lse } = maskedSoftmax(logits, mask); // [T,N,S], [T,N]
    probe.tap('attn_probs', probs, 't h s');
    probe.tap('lse', reportedLse(lse, this.faults), 't h'); // [T,N] (Triton MLA layout)
    const attn_out_latent = probe.tap('attn_out_latent', tf.reshape(tf.matMul(tf.reshape(probs, [T * N, S]), kv_c_normed), [T, N, L])); // [T,N,L]
    const heads = tf.matMul(tf.transpose(attn_out_latent, [1, 0, 2]), W_UV); // [N,T,V] (_v_up_proj bmm)
    const attn_out_heads = probe.tap('attn_out_heads', tf.transpose(heads, [1, 0, 2])); // [T,N,V]
    const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
    return oProj(this.layer, attn_out, probe); // [T,H]
  }

  dispose(): void {
    tf.dispose([this.absorbed.W_UK_T, this.absorbed.W_UV]);
  }
}
