import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { MlaConfig } from '../core/model/config';
import { qkHeadDim, yarnGetMscale } from '../core/model/config';
import type { RopeAngles, RopeStyle, RopeTables } from '../core/model/rope';
import { ropeTables } from '../core/model/rope';
import type { Rounding } from './rounding';
import type { TensorProbe } from '../core/probes/probe';
import type { PieceInput } from './backend';
import type { DeviceLayer } from './layer';
import { applyRope, linear, rmsNorm, ropeTensors, scoped } from './shared';

/** The tensors attention consumes, produced by the common pre-attention. */
export interface PreAttention {
  q_nope: tf.Tensor3D; // [T,N,P]
  q_pe: tf.Tensor3D; // [T,N,R]
  kv_c_normed: tf.Tensor2D; // [T,L]
  k_pe: tf.Tensor2D; // [T,R]
  k_pe_raw: tf.Tensor2D; // [T,R], before RoPE
  style: RopeStyle;
  /** The piece's latent cache rows [kv_c_normed | k_pe], to be written before attention. */
  rows: tf.Tensor2D; // [T,L+R]
}

/**
 * vLLM MultiHeadLatentAttentionWrapper.forward up to mla_attn (mla-math.md §3.1), with a probe at
 * every stage of §6.0, from the step's token embeddings (before input_layernorm).
 */
export function preAttention(
  layer: DeviceLayer,
  input: Pick<PieceInput, 'positions' | 'embeddings' | 'deviceEmbeddings'>,
  probe: TensorProbe,
  faults: FaultSet,
  rd: Rounding,
): PreAttention {
  // In its own scope: the projections' temporaries (transposed products, RoPE halves) are freed here, not at the end of the step.
  return scoped(() => preAttentionIn(layer, input, probe, faults, rd));
}

/** RoPE tables; under `rope-mscale-inflated` cos/sin carry get_mscale(factor, mscale_all_dim) instead of the ratio. */
function pathRopeTables(c: MlaConfig, positions: readonly number[], faults: FaultSet, angles: RopeAngles): RopeTables {
  const t = ropeTables(c, positions, angles);
  const y = c.rope_scaling;
  if (!faults.has('rope-mscale-inflated') || !y) return t;
  const k = yarnGetMscale(y.factor, y.mscale_all_dim) / t.mscale;
  return { ...t, cos: t.cos.map((x) => x * k), sin: t.sin.map((x) => x * k), mscale: t.mscale * k };
}

function preAttentionIn(
  layer: DeviceLayer,
  input: Pick<PieceInput, 'positions' | 'embeddings' | 'deviceEmbeddings'>,
  probe: TensorProbe,
  faults: FaultSet,
  rd: Rounding,
): PreAttention {
  const c: MlaConfig = layer.config;
  const T = input.positions.length;
  const embeddings = input.deviceEmbeddings ?? tf.tensor2d(input.embeddings, [T, c.hidden_size]); // [T,H]
  // The layer's memo where the tables are the plain ones (a fault may rescale them per path).
  const plainRope = !faults.has('rope-mscale-inflated') || !c.rope_scaling;
  const angles = layer.rope?.angles ?? 'float64';
  const rope =
    layer.rope && plainRope ? layer.rope.tensors(input.positions) : ropeTensors(pathRopeTables(c, input.positions, faults, angles), T);
  const N = c.num_attention_heads;
  const P = c.qk_nope_head_dim;
  const R = c.qk_rope_head_dim;
  const L = c.kv_lora_rank;
  const style: RopeStyle = faults.has('rope-neox') || !c.rope_interleave ? 'neox' : 'gptj';
  probe.scalar('rope_style', style);
  // One device program each where the device has them (kernels/norm-rope.ts), else the tfjs ops below.
  const dev = layer.normRope;
  const norm = <X extends tf.Tensor>(x: X, w: tf.Tensor1D): X =>
    dev ? (dev.rmsNorm(x, w, c.rms_norm_eps) as X) : rmsNorm(x, w, c.rms_norm_eps);
  const rotate = <X extends tf.Tensor>(x: X): X => (dev ? (dev.rope(x, rope.cos, rope.sin, style) as X) : applyRope(x, rope, style));
  // Each layer writes the model dtype (rd.at is the identity in fp32); products accumulate in fp32.
  const hidden_in = probe.tap('hidden_in', rd.at('hidden_in', norm(embeddings, layer.norm.input_layernorm), probe)); // [T,H]
  const q_c_raw = probe.tap('q_c_raw', rd.at('q_c_raw', linear(hidden_in, layer.linear.q_a_proj), probe)); // [T,Lq]
  const kv_lora = probe.tap('kv_lora', rd.at('kv_lora', linear(hidden_in, layer.linear.kv_a_proj_with_mqa), probe)); // [T,L+R]
  const q_c = probe.tap('q_c', rd.at('q_c', norm(q_c_raw, layer.norm.q_a_layernorm), probe)); // [T,Lq]
  const q_full = probe.tap(
    'q_full_prerope',
    rd.at('q_full_prerope', tf.reshape(linear(q_c, layer.linear.q_b_proj), [T, N, qkHeadDim(c)]), probe),
  ); // [T,N,D]
  const q_nope = probe.tap('q_nope', tf.slice(q_full, [0, 0, 0], [T, N, P])) as tf.Tensor3D; // [T,N,P]
  const q_pe_raw = probe.tap('q_pe_raw', tf.slice(q_full, [0, 0, P], [T, N, R])) as tf.Tensor3D; // [T,N,R]
  const kv_c = probe.tap('kv_c', tf.slice(kv_lora, [0, 0], [T, L])); // [T,L]
  const k_pe_raw = probe.tap('k_pe_raw', tf.slice(kv_lora, [0, L], [T, R])); // [T,R]
  const kv_c_normed = probe.tap(
    'kv_c_normed',
    faults.has('kv-norm-skipped') ? kv_c : rd.at('kv_c_normed', norm(kv_c, layer.norm.kv_a_layernorm), probe),
  ); // [T,L]
  const q_pe = probe.tap('q_pe', rd.at('q_pe', rotate(q_pe_raw), probe)); // [T,N,R]
  const k_pe = probe.tap('k_pe', rd.at('k_pe', rotate(k_pe_raw), probe)); // [T,R]
  if (probe.wants('q')) probe.tap('q', tf.concat([q_nope, q_pe], -1)); // [T,N,D]
  return { q_nope, q_pe, kv_c_normed, k_pe, k_pe_raw, style, rows: tf.concat([kv_c_normed, k_pe], -1) }; // rows [T,L+R]
}
