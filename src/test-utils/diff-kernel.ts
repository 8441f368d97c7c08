import type * as tfc from '@tensorflow/tfjs-core';
import type { DiffKernel } from '../core/probes/diff-partials';
import { DIFF_WIDTH } from '../core/probes/diff-partials';

const { abs, floor, fround, log2, max, min } = Math;

/**
 * The webgpu diff kernel's partials (src/devices/kernels/diff-kernel.ts), computed on the host: per group of
 * `groupSize` elements, over the pairs where both are finite, scaled by 2^s (s brings the largest |a|, |b| into
 * [1, 2)): Σ(a−b)², Σa², Σb², Σab, the first largest float32 |a − b| and its offset; the NaN counts of each side
 * and the pairs with an infinity that differ.
 */
export function hostDiffPartials(a: ArrayLike<number>, b: ArrayLike<number>, groupSize: number): Float32Array {
  const rows = Math.ceil(a.length / groupSize);
  const p = new Float32Array(rows * DIFF_WIDTH);
  for (let g = 0; g < rows; g++) {
    const end = min(a.length, (g + 1) * groupSize);
    let top = 0,
      nanA = 0,
      nanB = 0,
      inf = 0;
    const finite = (x: number, y: number) => x - x === 0 && y - y === 0;
    for (let i = g * groupSize; i < end; i++) {
      const [x, y] = [a[i] as number, b[i] as number];
      if (x !== x || y !== y) {
        if (x !== x) nanA++;
        if (y !== y) nanB++;
      } else if (!finite(x, y)) {
        if (x !== y) inf++;
      } else top = max(top, abs(x), abs(y));
    }
    const s = top > 0 ? max(-126, min(126, -floor(log2(top)))) : 126;
    let dd = 0,
      aa = 0,
      bb = 0,
      ab = 0,
      best = -1,
      at = -1;
    for (let i = g * groupSize; i < end; i++) {
      const [x, y] = [(a[i] as number) * 2 ** s, (b[i] as number) * 2 ** s];
      if (!finite(x, y)) continue;
      dd += (x - y) ** 2;
      aa += x * x;
      bb += y * y;
      ab += x * y;
      const d = abs(fround(x - y));
      if (d > best) {
        best = d;
        at = i - g * groupSize;
      }
    }
    p.set([dd, aa, bb, ab, s, max(best, 0), at, nanA, nanB, inf], g * DIFF_WIDTH);
  }
  return p;
}

/** A DiffKernel for the cpu and wasm backends in tests: hostDiffPartials of the two tensors' values, uploaded. */
export function hostDiffKernel(tf: typeof tfc, groupSize: number): DiffKernel & { launches: number } {
  const k = {
    groupSize,
    launches: 0,
    launch(x: tfc.Tensor, y: tfc.Tensor): tfc.Tensor {
      k.launches++;
      return tf.tensor1d(hostDiffPartials(x.dataSync(), y.dataSync(), groupSize));
    },
  };
  return k;
}
