import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../faults/catalogue';
import type { TensorProbe } from '../probes/probe';
import type { LayerInput, MlaBackend } from './backend';
import type { DeviceLayer } from './layer';
import { causalMask, linear, maskedSoftmax, onHost, oProj, pathScale, preAttention, reportedLse, stepScalars } from './shared';

/**
 * Reconstructed-head MHA, as vLLM forward_mha without context: kv_b_proj up-projects the latent
 * into per-head k_nope and v, k = [k_nope | k_pe broadcast], causal attention over the step.
 */
export class MhaBackend implements MlaBackend<tf.Tensor> {
  readonly name = 'mha' as const;

  constructor(private readonly layer: DeviceLayer, private readonly faults: FaultSet) {}

  forward(input: LayerInput, probe: TensorProbe): Promise<Float32Array> {
    return onHost(() => this.step(input, probe));
  }

  private step(input: LayerInput, probe: TensorProbe): tf.Tensor2D {
    const c = this.layer.config;
    const T = input.positions.length;
    const [N, P, R, V] = [c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim];
    const scale = pathScale(c, this.faults);
    stepScalars(probe, 'mha', T, scale, this.faults);
    const { q_nope, q_pe, kv_c_normed, k_pe } = preAttention(this.layer, input, probe, this.faults);

    const kv_nope = probe.tap('kv_nope', tf.reshape(linear(kv_c_normed, this.layer.linear.kv_b_proj), [T, N, P + V])); // [S,N,P+V]
    const k_nope = probe.tap('k_nope', tf.slice(kv_nope, [0, 0, 0], [T, N, P])); // [S,N,P]
    const v = probe.tap('v', tf.slice(kv_nope, [0, 0, P], [T, N, V])); // [S,N,V]
    const k = probe.tap('k', tf.concat([k_nope, tf.broadcastTo(tf.reshape(k_pe, [T, 1, R]), [T, N, R])], -1)); // [S,N,D]
    const q = tf.concat([q_nope, q_pe], -1); // [T,N,D]

    // FlashAttention varlen, causal: heads-major [N,T,D]·[N,S,D]ᵀ.
    const logits = probe.tap('logits', tf.mul(tf.matMul(tf.transpose(q, [1, 0, 2]), tf.transpose(k, [1, 0, 2]), false, true), scale)); // [N,T,S]
    const mask = tf.expandDims(causalMask(input.positions, input.positions), 0); // [1,T,S]
    const { probs, lse } = maskedSoftmax(logits, mask); // [N,T,S], [N,T]
    probe.tap('attn_probs', probs);
    probe.tap('lse', reportedLse(lse, this.faults)); // [N,T] (FA layout)
    const heads = tf.matMul(probs, tf.transpose(v, [1, 0, 2])); // [N,T,V]
    const attn_out_heads = probe.tap('attn_out_heads', tf.transpose(heads, [1, 0, 2])); // [T,N,V]
    const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
    return oProj(this.layer, attn_out, probe); // [T,H]
  }

  dispose(): void {}
}
