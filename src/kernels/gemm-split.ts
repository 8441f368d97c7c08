import type { GemmLimits, GemmPlan } from './gemm';
import { finishPlan } from './gemm';
import { MIN_GEMM_WORKGROUPS } from './gemm-tiles';

/**
 * Split-K for a 2-D product with few output tiles and a long K (the layer's projections at a few
 * hundred tokens: kv_a_proj's 576 columns over K = 6144 made 72 workgroups at T = 512, 4.7 TFLOP/s
 * on the H200; o_proj's 384 over K = 16384): K is cut into s equal parts, each part a batch entry
 * of the same GEMM writing its own partial [s,M,N], summed by the caller (tf.sum over the first
 * axis). s doubles while the workgroups stay under SPLIT_WORKGROUPS, up to 8, as long as each
 * part keeps at least MIN_SPLIT_K of K and K divides into whole (paired) k-steps. The k-sum order
 * changes (fp32 rounding); the same shapes always split the same way.
 */
export const SPLIT_WORKGROUPS = 2 * MIN_GEMM_WORKGROUPS;
export const MIN_SPLIT_K = 512;
export const MAX_SPLIT_K = 8;

/** The parts K is cut into for `p` (1: no split; batched products never split). */
export function chooseSplitK(p: GemmPlan): number {
  if (p.batch !== 1) return 1;
  const groups = p.dispatch[0] * p.dispatch[1];
  const step = p.tiles.bk * (p.tiles.pairs ? 2 : 1);
  let s = 1;
  while (groups * s < SPLIT_WORKGROUPS && 2 * s <= MAX_SPLIT_K && p.K % (2 * s * step) === 0 && p.K / (2 * s) >= MIN_SPLIT_K) s *= 2;
  return s;
}

/** `p` as s batch entries over K/s each: A's columns and B's rows at offsets of K/s, partials [s,M,N]. */
export function splitPlan(p: GemmPlan, s: number, limits: GemmLimits): GemmPlan {
  const Ks = p.K / s;
  const strides = { ...p.strides, aBatch: Ks, bBatch: Ks * p.strides.ldb, cBatch: p.M * p.N };
  return finishPlan({ batch: s, M: p.M, N: p.N, K: Ks, broadcastB: false, strides, outputShape: [s, p.M, p.N] },
    [['a', p.M * p.K], ['b', p.K * p.N], ['c', s * p.M * p.N]], limits, p.tiles);
}
