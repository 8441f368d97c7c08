import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import { K_SCALE } from '../core/faults/catalogue';
import type { MlaConfig } from '../core/model/config';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../core/model/config';
import type { RopeStyle, RopeTables } from '../core/model/rope';
import type { Rounding } from './rounding';
import type { AttentionFn } from '../devices/kernels/attention-kernel';
import type { Attended } from '../devices/kernels/attention';
import type { FlashArgs } from '../devices/kernels/tiled-attention';
import { tiledAttention } from '../devices/kernels/tiled-attention';
import type { TensorProbe } from '../core/probes/probe';
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
  if (args.tokens && !f?.tokenMajor) {
    // token-major in and out, through a kernel or tiling that takes heads first
    const swap = (x: tf.Tensor3D) => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D;
    const heads = blockAttention(
      layer,
      probe,
      rd,
      { ...args, tokens: false, q: swap(args.q), k: swap(args.k), v: args.v && swap(args.v) },
      sampled,
    );
    return { ...heads, out: swap(heads.out) }; // [B,A,E]
  }
  if (!f) return tiledAttention(tf, args, { batched: layer.batched });
  const e = args.v ? args.v.shape[2] : args.vDim!;
  return f({
    q: args.q,
    k: args.k,
    v: args.v,
    e,
    scale: args.scale,
    mask: args.mask,
    emptyLse: args.emptyLse ?? '-inf',
    ...(args.tokens ? { tokens: true } : {}),
  });
}

/** The LSE as a kernel reports it: natural log, or base 2 under the `lse-base-2` fault. */
export function reportedLse<T extends tf.Tensor>(lse: T, faults: FaultSet): T {
  return faults.has('lse-base-2') ? tf.div(lse, Math.LN2) : lse;
}

/** Cache index of each query token of a piece (its RoPE position may be offset). */
export const queryIndices = (piece: Pick<PieceInput, 'start' | 'positions'>): number[] => piece.positions.map((_, t) => piece.start + t);

/** Keys each query row sees under the causal mask: index + 1, [T]. */
export function causalKeyCounts(piece: Pick<PieceInput, 'start' | 'positions'>): tf.Tensor1D {
  return tf.tensor1d(
    queryIndices(piece).map((i) => i + 1),
    'float32',
  );
}

/** tf.tidy for a result of tensors in plain objects (interfaces lack the index signature TensorContainer asks for). */
export function scoped<R>(f: () => R): R {
  return tf.tidy(f as unknown as () => tf.TensorContainer) as unknown as R;
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
