import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../faults/catalogue';
import { K_SCALE } from '../faults/catalogue';
import type { MlaConfig } from '../model/config';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../model/config';
import type { RopeStyle, RopeTables } from '../model/rope';
import { ropeTables } from '../model/rope';
import type { Rounding } from '../precision/rounding';
import type { AttentionFn } from './attention-kernel';
import type { Attended } from './attention';
import type { FlashArgs } from './tiled-attention';
import { tiledAttention } from './tiled-attention';
import type { TensorProbe } from '../probes/probe';
import type { PieceInput } from './backend';
import type { DeviceLayer, DeviceLinear } from './layer';
import type { RopeTensors } from './rope-memo';

/**
 * Pure tfjs helpers shared by the device paths (mha, mqa, cold): the common pre-attention, o_proj,
 * masks, per-piece scalars. Nothing here knows which path calls it; faults arrive as data.
 */

/** x·Wᵀ for a PyTorch-style Linear (no bias), whatever the device layout and product form. */
export function linear(x: tf.Tensor2D, l: DeviceLinear): tf.Tensor2D {
  if (l.product === 'swapped' && l.layout === 'out_in') {
    return tf.transpose(tf.matMul(l.w, tf.transpose(x))) as tf.Tensor2D; // ([out,in]·[in,T])ᵀ = [T,out]
  }
  if (l.gemm && l.layout === 'in_out' && l.product === 'direct') return l.gemm(x, l.w); // [T,in]·[in,out] = [T,out]
  return tf.matMul(x, l.w, false, l.layout === 'out_in'); // [T,out]
}

/** RMSNorm: x · rsqrt(mean(x²) + eps) · w, over the last axis. */
export function rmsNorm<T extends tf.Tensor>(x: T, w: tf.Tensor1D, eps: number): T {
  const ms = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, eps))), w);
}

export type { RopeTensors } from './rope-memo';

export function ropeTensors(t: RopeTables, T: number): RopeTensors {
  return { cos: tf.tensor2d(Float32Array.from(t.cos), [T, t.half]), sin: tf.tensor2d(Float32Array.from(t.sin), [T, t.half]) };
}

/**
 * Rotate x [T, ..., R] by position. GPT-J pairs (2i, 2i+1) as vLLM's is_neox_style=False;
 * NeoX pairs (i, i + R/2). cos/sin [T, R/2] broadcast over the middle axes.
 */
export function applyRope<T extends tf.Tensor>(x: T, rope: RopeTensors, style: RopeStyle): T {
  const R = x.shape[x.rank - 1] as number;
  const half = R / 2;
  const lead = x.shape.slice(0, -1);
  const bshape = [lead[0] as number, ...lead.slice(1).map(() => 1), half];
  const cos = tf.reshape(rope.cos, bshape);
  const sin = tf.reshape(rope.sin, bshape);
  const at = (t: tf.Tensor, k: number, n: number) => tf.slice(t, [...t.shape.slice(0, -1).map(() => 0), k], [...t.shape.slice(0, -1), n]);
  if (style === 'gptj') {
    const pairs = tf.reshape(x, [...lead, half, 2]); // [..., R/2, 2]
    const x1 = tf.squeeze(at(pairs, 0, 1), [-1]); // x[..., 0::2]
    const x2 = tf.squeeze(at(pairs, 1, 1), [-1]); // x[..., 1::2]
    const o1 = tf.sub(tf.mul(x1, cos), tf.mul(x2, sin));
    const o2 = tf.add(tf.mul(x2, cos), tf.mul(x1, sin));
    return tf.reshape(tf.stack([o1, o2], -1), x.shape) as T;
  }
  const x1 = at(x, 0, half); // x[..., :R/2]
  const x2 = at(x, half, half); // x[..., R/2:]
  return tf.concat([tf.sub(tf.mul(x1, cos), tf.mul(x2, sin)), tf.add(tf.mul(x2, cos), tf.mul(x1, sin))], -1) as T;
}

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

/** Runs a path's step inside tf.tidy; o_proj_out [T,H] comes to the host only when asked for. */
export async function onHost(step: () => tf.Tensor2D, readOutput: boolean): Promise<Float32Array | null> {
  const out = tf.tidy(step);
  // Without the output, one element is read: the step's work is done (and its errors raised) on return.
  const read = readOutput ? out : tf.slice(out, [0, 0], [Math.min(1, out.shape[0]), Math.min(1, out.shape[1])]);
  const values = (await read.data()) as Float32Array;
  tf.dispose([out, read]);
  return readOutput ? values : null;
}

/**
 * The softmax scale a path uses: the config's, unless a planted fault computes it the way a real
 * bug did — from the 576-wide latent, without YaRN's mscale², with the log term misread 10× too
 * small, or with a BF16 cache's k_scale multiplied in.
 */
export function pathScale(c: MlaConfig, faults: FaultSet): number {
  const y = c.rope_scaling;
  let scale = softmaxScale(c);
  if (faults.has('softmax-scale-latent')) scale = latentWidth(c) ** -0.5;
  if (faults.has('yarn-mscale-missing')) scale = qkHeadDim(c) ** -0.5;
  if (faults.has('yarn-log-mul-misread') && y) scale = qkHeadDim(c) ** -0.5 * yarnGetMscale(y.factor, y.mscale_all_dim / 10) ** 2;
  if (faults.has('k-scale-bf16-cache')) scale *= K_SCALE;
  return scale;
}

/** The facts every path records about a piece. */
export function pieceScalars(probe: TensorProbe, piece: PieceInput, scale: number, faults: FaultSet): void {
  probe.scalar('softmax_scale', scale);
  probe.scalar('has_context', piece.start > 0);
  probe.scalar('causal', true);
  probe.scalar('num_tokens', piece.positions.length);
  probe.scalar('num_context_tokens', piece.start);
  probe.scalar('route', piece.route);
  probe.scalar('lse_base', faults.has('lse-base-2') ? 2 : 'e');
  if (piece.logitsRows) probe.scalar('logits_rows', piece.logitsRows.join(','));
}

/**
 * The layer's fused or tiled attention when this piece may use it: the run has one, the probe
 * records neither the scores nor the probabilities (they are never formed) unless only sampled rows
 * of them (`sampled`: logits-rows.ts computes those on the side), and the path does not round P
 * before P·V (the kernels compute in fp32).
 */
export function fusedFor(layer: DeviceLayer, probe: TensorProbe, rd: Rounding, sampled = false): AttentionFn | null {
  const f = layer.attention;
  return f && (sampled || (!probe.wants('logits') && !probe.wants('attn_probs'))) && !rd.points.has('attn_probs') ? f : null;
}

/**
 * One attention without the full score tensor: the layer's fused kernel where `fusedFor` allows it,
 * else the host tiling in query blocks (tiled-attention.ts). Same result as `attend` over masked logits.
 */
export function blockAttention(layer: DeviceLayer, probe: TensorProbe, rd: Rounding, args: FlashArgs, sampled = false): Attended {
  const f = fusedFor(layer, probe, rd, sampled);
  if (args.tokens && !f?.tokenMajor) { // token-major in and out, through a kernel or tiling that takes heads first
    const swap = (x: tf.Tensor3D) => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D;
    const heads = blockAttention(layer, probe, rd, { ...args, tokens: false, q: swap(args.q), k: swap(args.k), v: args.v && swap(args.v) }, sampled);
    return { ...heads, out: swap(heads.out) }; // [B,A,E]
  }
  if (!f) return tiledAttention(tf, args, { batched: layer.batched });
  const e = args.v ? args.v.shape[2] : args.vDim!;
  return f({ q: args.q, k: args.k, v: args.v, e, scale: args.scale, mask: args.mask, emptyLse: args.emptyLse ?? '-inf', ...(args.tokens ? { tokens: true } : {}) });
}

/** The LSE as a kernel reports it: natural log, or base 2 under the `lse-base-2` fault. */
export function reportedLse<T extends tf.Tensor>(lse: T, faults: FaultSet): T {
  return faults.has('lse-base-2') ? tf.div(lse, Math.LN2) : lse;
}

/** RoPE tables; under `rope-mscale-inflated` cos/sin carry get_mscale(factor, mscale_all_dim) instead of the ratio. */
function pathRopeTables(c: MlaConfig, positions: readonly number[], faults: FaultSet): RopeTables {
  const t = ropeTables(c, positions);
  const y = c.rope_scaling;
  if (!faults.has('rope-mscale-inflated') || !y) return t;
  const k = yarnGetMscale(y.factor, y.mscale_all_dim) / t.mscale;
  return { ...t, cos: t.cos.map((x) => x * k), sin: t.sin.map((x) => x * k), mscale: t.mscale * k };
}

/** Cache index of each query token of a piece (its RoPE position may be offset). */
export const queryIndices = (piece: Pick<PieceInput, 'start' | 'positions'>): number[] => piece.positions.map((_, t) => piece.start + t);

/** Keys each query row sees under the causal mask: index + 1, [T]. */
export function causalKeyCounts(piece: Pick<PieceInput, 'start' | 'positions'>): tf.Tensor1D {
  return tf.tensor1d(queryIndices(piece).map((i) => i + 1), 'float32');
}

/**
 * vLLM MultiHeadLatentAttentionWrapper.forward up to mla_attn (mla-math.md §3.1), with a probe at
 * every stage of §6.0, from the step's token embeddings (before input_layernorm).
 */
export function preAttention(layer: DeviceLayer, input: Pick<PieceInput, 'positions' | 'embeddings' | 'deviceEmbeddings'>, probe: TensorProbe, faults: FaultSet, rd: Rounding): PreAttention {
  // In its own scope: the projections' temporaries (transposed products, RoPE halves) are freed here, not at the end of the step.
  return scoped(() => preAttentionIn(layer, input, probe, faults, rd));
}

/** tf.tidy for a result of tensors in plain objects (interfaces lack the index signature TensorContainer asks for). */
export function scoped<R>(f: () => R): R {
  return tf.tidy(f as unknown as () => tf.TensorContainer) as unknown as R;
}

function preAttentionIn(layer: DeviceLayer, input: Pick<PieceInput, 'positions' | 'embeddings' | 'deviceEmbeddings'>, probe: TensorProbe, faults: FaultSet, rd: Rounding): PreAttention {
  const c: MlaConfig = layer.config;
  const T = input.positions.length;
  const embeddings = input.deviceEmbeddings ?? tf.tensor2d(input.embeddings, [T, c.hidden_size]); // [T,H]
  // The layer's memo where the tables are the plain ones (a fault may rescale them per path).
  const plainRope = !faults.has('rope-mscale-inflated') || !c.rope_scaling;
  const rope = layer.rope && plainRope ? layer.rope.tensors(input.positions) : ropeTensors(pathRopeTables(c, input.positions, faults), T);
  const N = c.num_attention_heads;
  const P = c.qk_nope_head_dim;
  const R = c.qk_rope_head_dim;
  const L = c.kv_lora_rank;
  const style: RopeStyle = faults.has('rope-neox') || !c.rope_interleave ? 'neox' : 'gptj';
  probe.scalar('rope_style', style);
  // One device program each where the device has them (kernels/norm-rope.ts), else the tfjs ops below.
  const dev = layer.normRope;
  const norm = <X extends tf.Tensor>(x: X, w: tf.Tensor1D): X => (dev ? dev.rmsNorm(x, w, c.rms_norm_eps) as X : rmsNorm(x, w, c.rms_norm_eps));
  const rotate = <X extends tf.Tensor>(x: X): X => (dev ? dev.rope(x, rope.cos, rope.sin, style) as X : applyRope(x, rope, style));
  // Each layer writes the model dtype (rd.at is the identity in fp32); products accumulate in fp32.
  const hidden_in = probe.tap('hidden_in', rd.at('hidden_in', norm(embeddings, layer.norm.input_layernorm), probe)); // [T,H]
  const q_c_raw = probe.tap('q_c_raw', rd.at('q_c_raw', linear(hidden_in, layer.linear.q_a_proj), probe)); // [T,Lq]
  const kv_lora = probe.tap('kv_lora', rd.at('kv_lora', linear(hidden_in, layer.linear.kv_a_proj_with_mqa), probe)); // [T,L+R]
  const q_c = probe.tap('q_c', rd.at('q_c', norm(q_c_raw, layer.norm.q_a_layernorm), probe)); // [T,Lq]
  const q_full = probe.tap('q_full_prerope', rd.at('q_full_prerope', tf.reshape(linear(q_c, layer.linear.q_b_proj), [T, N, qkHeadDim(c)]), probe)); // [T,N,D]
  const q_nope = probe.tap('q_nope', tf.slice(q_full, [0, 0, 0], [T, N, P])) as tf.Tensor3D; // [T,N,P]
  const q_pe_raw = probe.tap('q_pe_raw', tf.slice(q_full, [0, 0, P], [T, N, R])) as tf.Tensor3D; // [T,N,R]
  const kv_c = probe.tap('kv_c', tf.slice(kv_lora, [0, 0], [T, L])); // [T,L]
  const k_pe_raw = probe.tap('k_pe_raw', tf.slice(kv_lora, [0, L], [T, R])); // [T,R]
  const kv_c_normed = probe.tap('kv_c_normed',
    faults.has('kv-norm-skipped') ? kv_c : rd.at('kv_c_normed', norm(kv_c, layer.norm.kv_a_layernorm), probe)); // [T,L]
  const q_pe = probe.tap('q_pe', rd.at('q_pe', rotate(q_pe_raw), probe)); // [T,N,R]
  const k_pe = probe.tap('k_pe', rd.at('k_pe', rotate(k_pe_raw), probe)); // [T,R]
  if (probe.wants('q')) probe.tap('q', tf.concat([q_nope, q_pe], -1)); // [T,N,D]
  return { q_nope, q_pe, kv_c_normed, k_pe, k_pe_raw, style, rows: tf.concat([kv_c_normed, k_pe], -1) }; // rows [T,L+R]
}

/**
 * Additive causal mask [T, S]: 0 where key index ≤ query index, −∞ elsewhere. Added to logits it
 * broadcasts over heads without materializing a [N,T,S] boolean mask.
 */
export function causalBias(queryIdx: readonly number[], keyIdx: readonly number[]): tf.Tensor2D {
  const T = queryIdx.length;
  const S = keyIdx.length;
  const m = new Float32Array(T * S);
  for (let t = 0; t < T; t++) for (let s = 0; s < S; s++) m[t * S + s] = keyIdx[s]! <= queryIdx[t]! ? 0 : -Infinity;
  return tf.tensor2d(m, [T, S]);
}

/** o_proj(attn_out), probed; under a head slice this is the rank's partial sum. */
export function oProj(layer: DeviceLayer, attn_out: tf.Tensor2D, probe: TensorProbe, rd: Rounding): tf.Tensor2D {
  return probe.tap('o_proj_out', rd.at('o_proj_out', linear(attn_out, layer.linear.o_proj), probe)); // [T,H]
}
