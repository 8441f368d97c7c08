import type * as tfc from '@tensorflow/tfjs-core';
import type { StatsKernel } from '../core/probes/stats-partials';
import { PARTIAL_WIDTH, partialRows } from '../core/probes/stats-partials';

const { abs, floor, log2, max, min } = Math;

/**
 * The webgpu stats kernel's partials (src/devices/kernels/stats-kernel.ts), computed on the host: per group
 * of `groupSize` elements the finite values scaled by 2^s (s brings the largest |x| into [1, 2)),
 * their squares and sums, the first largest |x| and its offset, the NaN and ±Inf counts.
 */
export function hostPartials(v: ArrayLike<number>, groupSize: number): Float32Array {
  const rows = partialRows(v.length, groupSize);
  const p = new Float32Array(rows * PARTIAL_WIDTH);
  for (let g = 0; g < rows; g++) {
    const end = min(v.length, (g + 1) * groupSize);
    let best = -1,
      at = -1,
      nan = 0,
      inf = 0;
    for (let i = g * groupSize; i < end; i++) {
      const x = v[i] as number;
      if (x !== x) nan++;
      else if (x - x !== 0) inf++;
      else if (abs(x) > best) {
        best = abs(x);
        at = i - g * groupSize;
      }
    }
    const s = best > 0 ? max(-126, min(126, -floor(log2(best)))) : 126;
    let sq = 0,
      sum = 0;
    for (let i = g * groupSize; i < end; i++) {
      const x = v[i] as number;
      if (x - x === 0) {
        const y = x * 2 ** s;
        sq += y * y;
        sum += y;
      }
    }
    p.set([sq, sum, s, max(best, 0), at, nan, inf], g * PARTIAL_WIDTH);
  }
  return p;
}

/**
 * A StatsKernel for the cpu and wasm backends in tests: hostPartials of the tensor's values,
 * uploaded; with `maxBatch`, also launchMany (the tensors' partials one after another).
 */
export function hostStatsKernel(tf: typeof tfc, groupSize: number, maxBatch?: number): StatsKernel & { launches: number } {
  const kernel = {
    groupSize,
    launches: 0,
    launch(x: tfc.Tensor): tfc.Tensor {
      kernel.launches++;
      return tf.tensor(hostPartials(x.dataSync(), groupSize)); // [G·PARTIAL_WIDTH]
    },
    ...(maxBatch
      ? {
          maxBatch,
          launchMany(xs: readonly tfc.Tensor[]): tfc.Tensor {
            if (xs.length > maxBatch) throw new Error(`${xs.length} tensors in one launch, over ${maxBatch}`);
            kernel.launches++;
            const parts = xs.map((x) => hostPartials(x.dataSync(), groupSize));
            const all = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
            let at = 0;
            for (const p of parts) {
              all.set(p, at);
              at += p.length;
            }
            return tf.tensor(all); // [ΣG·PARTIAL_WIDTH]
          },
        }
      : {}),
  };
  return kernel;
}
