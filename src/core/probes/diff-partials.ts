import type * as tfc from '@tensorflow/tfjs-core';

/**
 * A device's fused one-pass reduction of the difference of two float32 tensors of one size, flat order
 * (Runtime.diff; src/devices/kernels/diff-kernel.ts on webgpu): each group of `groupSize` consecutive
 * elements is reduced to one row of DIFF_WIDTH float32 partials, which `diffFromPartials` finishes on
 * the host in float64. Only the pairs where both a and b are finite enter the sums and the largest |a − b|.
 *
 * Row g, for elements [g·groupSize, (g+1)·groupSize):
 *   0 Σ(a−b)²·2^(2s)  1 Σa²·2^(2s)  2 Σb²·2^(2s)  3 Σab·2^(2s)   scaled by the exact power of two 2^s
 *   4 s               the scale's exponent (an integer in −126..126): the group's largest |a|, |b| brought into [1, 2)
 *   5 maxAbs·2^s      largest |a − b| of the scaled pair, as float32 subtracts it (0 when there is no finite pair)
 *   6 at              its offset within the group, first occurrence; −1: no finite pair
 *   7 nanA  8 nanB    NaN counts of a and of b
 *   9 inf             pairs with no NaN, not both finite, and a ≠ b (an infinity agrees only with itself)
 * Every integer is below 2^24, so exact in float32.
 */
export const DIFF_WIDTH = 10;

export interface DiffKernel {
  /** Elements per partial row. */
  readonly groupSize: number;
  /** Launches the reduction of a − b (same size, at least one element, flat order): [G·DIFF_WIDTH], not read yet. */
  launch(a: tfc.Tensor, b: tfc.Tensor): tfc.Tensor;
}

/** What a diff of two tensors sums, in float64 (src/harness/run/diff.ts finishes it into a PairDiff). */
export interface DiffSums {
  dd: number;
  aa: number;
  bb: number;
  ab: number;
  maxAbs: number;
  /** Flat index of maxAbs, first occurrence; 0 when every difference is 0. */
  at: number;
  nanA: number;
  nanB: number;
  inf: number;
}

export const zeroSums = (): DiffSums => ({ dd: 0, aa: 0, bb: 0, ab: 0, maxAbs: 0, at: 0, nanA: 0, nanB: 0, inf: 0 });

const { fround } = Math;

/** 2^-s for the scale exponents s in −126..126 (index s + 126). */
const UNSCALE: readonly number[] = Array.from({ length: 253 }, (_, i) => 2 ** -(i - 126));

/** DiffSums from partial rows, in float64: sums in row order, maxAbs at its first occurrence (hostDiff's index). */
export function diffFromPartials(p: ArrayLike<number>, groupSize: number, size: number): DiffSums {
  const rows = Math.ceil(size / groupSize);
  if (p.length !== rows * DIFF_WIDTH) throw new Error(`diffFromPartials: ${p.length} partials for ${rows} rows of ${DIFF_WIDTH}`);
  const s = zeroSums();
  for (let g = 0; g < rows; g++) {
    const o = g * DIFF_WIDTH;
    const u = UNSCALE[(p[o + 4] as number) + 126] ?? 2 ** -(p[o + 4] as number);
    const u2 = u * u;
    s.dd += (p[o] as number) * u2;
    s.aa += (p[o + 1] as number) * u2;
    s.bb += (p[o + 2] as number) * u2;
    s.ab += (p[o + 3] as number) * u2;
    const local = p[o + 6] as number;
    const maxAbs = fround((p[o + 5] as number) * u); // the float32 |a − b|: exact, subnormal or not
    if (local >= 0 && maxAbs > s.maxAbs) {
      s.maxAbs = maxAbs;
      s.at = g * groupSize + local;
    }
    s.nanA += p[o + 7] as number;
    s.nanB += p[o + 8] as number;
    s.inf += p[o + 9] as number;
  }
  return s;
}
