/**
 * Our K-quant quantizer's scale fitting (for test fixtures; not llama.cpp's optimiser). It never
 * clips: every sub-block's [min, max] lies inside its decoded grid, so each value is within half a
 * step of the level it gets. Sub-scales are rounded UP (ceil) against an f16 super-scale, so the
 * grid only ever grows.
 *
 * - Affine (Q2_K, Q4_K, Q5_K; y = d·sc·q − dmin·m, q ∈ 0..nmax): the offset M = dmin·m must reach
 *   down to min(lo, 0) (M ≥ 0 as ggml writes it), then S = d·sc must reach up: S·nmax − M ≥ hi.
 * - Symmetric (Q3_K, Q6_K, IQ4_XS; y = d·sc·q, q ∈ −qneg..qpos): per sub-block the sign of sc that
 *   needs the smaller |S|, with |S|·qneg and |S|·qpos covering the two sides.
 */
import { MlaDiffError } from '../../errors';
import { F16_TABLE } from '../half';
import { chooseScales } from './kquant-scales';

const { max, min, round } = Math;

/** Makes the step needs a hair larger so rounding in need = extent/levels can never under-cover. */
const INFLATE = 1 + 2 ** -40;

/** Per-call scratch (no allocation per block or element). */
export interface KFit {
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  readonly need: Float64Array;
  /** Sub-scale magnitudes. */
  readonly k: Int32Array;
  /** Affine: sub-block mins; symmetric: sign (±1) of each sub-scale. */
  readonly m: Int32Array;
  /** Levels of the 256 values: 0..nmax (affine) or −qneg..qpos (symmetric, grid index for IQ4_XS). */
  readonly L: Int32Array;
  dBits: number;
  dminBits: number;
}

export const newFit = (): KFit => ({
  lo: new Float64Array(16),
  hi: new Float64Array(16),
  need: new Float64Array(16),
  k: new Int32Array(16),
  m: new Int32Array(16),
  L: new Int32Array(256),
  dBits: 0,
  dminBits: 0,
});

/** Min and max of each of the `nsub` sub-blocks of `size` values at x[o]; rejects NaN and ±Inf. */
function subRanges(x: Float32Array, o: number, size: number, nsub: number, f: KFit): void {
  for (let j = 0; j < nsub; j++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = o + j * size, e = i + size; i < e; i++) {
      const v = x[i]!;
      if (v - v !== 0) {
        throw new MlaDiffError('invalid-value', `cannot quantize the non-finite value ${v} at element ${i}`);
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    f.lo[j] = lo;
    f.hi[j] = hi;
  }
}

/**
 * Fits one affine super-block at x[o]: sets dBits, dminBits, k (scales), m (mins) and L (levels).
 * kMax bounds both the sub-scales and the mins (15 for Q2_K, 63 for Q4_K/Q5_K).
 */
export function fitAffine(x: Float32Array, o: number, size: number, nsub: number, nmax: number, kMax: number, f: KFit): void {
  subRanges(x, o, size, nsub, f);
  const { lo, hi, need, k, m, L } = f;
  for (let j = 0; j < nsub; j++) need[j] = -min(lo[j]!, 0);
  f.dminBits = chooseScales(need, nsub, kMax, m);
  const dmin = F16_TABLE[f.dminBits]!;
  for (let j = 0; j < nsub; j++) need[j] = (max(hi[j]! + dmin * m[j]!, 0) / nmax) * INFLATE;
  f.dBits = chooseScales(need, nsub, kMax, k);
  const d = F16_TABLE[f.dBits]!;
  for (let j = 0; j < nsub; j++) {
    const s = d * k[j]!;
    const off = dmin * m[j]!;
    for (let i = j * size, e = i + size; i < e; i++) {
      L[i] = s === 0 ? 0 : max(0, min(nmax, round((x[o + i]! + off) / s)));
    }
  }
}

/**
 * Fits the scales of one symmetric super-block at x[o]: sets dBits, k (magnitudes ≤ kMax) and m
 * (signs). The grid of sub-block j is d·m_j·k_j·[−qneg, qpos]. Levels are left to the caller.
 */
export function fitSymmetric(
  x: Float32Array,
  o: number,
  size: number,
  nsub: number,
  qneg: number,
  qpos: number,
  kMax: number,
  f: KFit,
): void {
  subRanges(x, o, size, nsub, f);
  const { lo, hi, need, k, m } = f;
  for (let j = 0; j < nsub; j++) {
    const neg = max(0, -lo[j]!);
    const pos = max(0, hi[j]!);
    const up = max(neg / qneg, pos / qpos); // sc > 0: −qneg·S ≤ lo, qpos·S ≥ hi
    const down = max(pos / qneg, neg / qpos); // sc < 0: the grid is mirrored
    m[j] = down < up ? -1 : 1;
    need[j] = min(up, down) * INFLATE;
  }
  f.dBits = chooseScales(need, nsub, kMax, k);
}

/** Levels round(x/S) clamped to −qneg..qpos for a uniform symmetric grid fitted by fitSymmetric. */
export function uniformLevels(x: Float32Array, o: number, size: number, nsub: number, qneg: number, qpos: number, f: KFit): void {
  const d = F16_TABLE[f.dBits]!;
  const { k, m, L } = f;
  for (let j = 0; j < nsub; j++) {
    const s = d * k[j]! * m[j]!;
    for (let i = j * size, e = i + size; i < e; i++) {
      L[i] = s === 0 ? 0 : max(-qneg, min(qpos, round(x[o + i]! / s)));
    }
  }
}
