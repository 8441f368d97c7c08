import type * as tfc from '@tensorflow/tfjs-core';
import { unravel } from './layout';
import type { TensorStats } from './stats';

/**
 * A device's fused one-pass statistics reduction (Runtime.stats; src/devices/kernels/stats-kernel.ts on
 * webgpu): each group of `groupSize` consecutive elements (in flat order) is reduced to one row
 * of PARTIAL_WIDTH float32 partials, which `statsFromPartials` finishes on the host in float64.
 *
 * Row g, for elements [g·groupSize, (g+1)·groupSize):
 *   0 sumSq·2^(2s)  sum of squares of the finite values, scaled by the exact power of two 2^s
 *   1 sum·2^s       sum of the finite values, same scale (no float32 overflow, no lost bits)
 *   2 s             the scale's exponent (an integer in −126..126)
 *   3 maxAbs        largest |x| over the finite values (0 when there is none)
 *   4 at            its offset within the group, first occurrence; −1: no finite value
 *   5 nan           NaN count
 *   6 inf           ±Inf count
 * Every integer is below 2^24, so exact in float32.
 */
export const PARTIAL_WIDTH = 7;

export interface StatsKernel {
  /** Elements per partial row. */
  readonly groupSize: number;
  /** Launches the reduction of a float32 tensor with at least one element: [G·PARTIAL_WIDTH], not read yet. */
  launch(x: tfc.Tensor): tfc.Tensor;
  /**
   * Where the device can: up to `maxBatch` such tensors in one launch, their partial rows one
   * tensor after another ([ΣG·PARTIAL_WIDTH]; tensor i's rows start at the sum of the rows before it).
   */
  launchMany?(xs: readonly tfc.Tensor[]): tfc.Tensor;
  readonly maxBatch?: number;
}

/** Rows of partials a tensor of `size` elements reduces to. */
export const partialRows = (size: number, groupSize: number): number => Math.ceil(size / groupSize);

/** 2^-s for the scale exponents s in −126..126 (index s + 126): a table lookup, not Math.pow per row. */
const UNSCALE: readonly number[] = Array.from({ length: 253 }, (_, i) => 2 ** -(i - 126));

/**
 * TensorStats from partial rows, in float64: sums in row order; the max |x| of the first row
 * holding the largest (a row keeps its first occurrence), so maxAbsAt is hostStats' index.
 */
export function statsFromPartials(p: ArrayLike<number>, groupSize: number, shape: number[], layout: string): TensorStats {
  const size = shape.reduce((a, b) => a * b, 1);
  const rows = partialRows(size, groupSize);
  if (p.length !== rows * PARTIAL_WIDTH) throw new Error(`statsFromPartials: ${p.length} partials for ${rows} rows of ${PARTIAL_WIDTH}`);
  let sumSq = 0,
    sum = 0,
    maxAbs = -1,
    at = 0,
    nanCount = 0,
    infCount = 0;
  for (let g = 0; g < rows; g++) {
    const o = g * PARTIAL_WIDTH;
    const unscale = UNSCALE[(p[o + 2] as number) + 126] ?? 2 ** -(p[o + 2] as number);
    sumSq += (p[o] as number) * unscale * unscale;
    sum += (p[o + 1] as number) * unscale;
    const local = p[o + 4] as number;
    if (local >= 0 && (p[o + 3] as number) > maxAbs) {
      maxAbs = p[o + 3] as number;
      at = g * groupSize + local;
    }
    nanCount += p[o + 5] as number;
    infCount += p[o + 6] as number;
  }
  const finite = size - nanCount - infCount;
  return {
    shape,
    dtype: 'float32',
    layout,
    size,
    l2: Math.sqrt(sumSq),
    rms: finite ? Math.sqrt(sumSq / finite) : 0,
    mean: finite ? sum / finite : 0,
    maxAbs: Math.max(maxAbs, 0),
    maxAbsAt: unravel(at, shape),
    nanCount,
    infCount,
  };
}
