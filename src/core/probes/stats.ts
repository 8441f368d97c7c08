import type * as tfc from '@tensorflow/tfjs-core';
import { unravel } from './layout';
import type { TensorStats } from '../../trace';

// Hot loops read Math through module constants: a global lookup per element is ~100× slower
// inside a vm context (jest) and no faster anywhere else.
const { abs } = Math;

/** What a probe records about one tensor (the report's `stats`): src/trace/case-trace.ts. */
export type { TensorStats } from '../../trace';

/** Exact stats of host values, accumulated in float64. */
export function hostStats(data: ArrayLike<number>, shape: number[], dtype: TensorStats['dtype'], layout: string): TensorStats {
  let sumSq = 0;
  let sum = 0;
  let maxAbs = -1;
  let at = 0;
  let nan = 0;
  let inf = 0;
  for (let i = 0; i < data.length; i++) {
    const x = data[i] as number;
    if (x !== x) {
      nan++;
      continue;
    } // NaN
    if (x - x !== 0) {
      inf++;
      continue;
    } // ±Infinity (no global lookup in the loop)
    sumSq += x * x;
    sum += x;
    const a = abs(x);
    if (a > maxAbs) {
      maxAbs = a;
      at = i;
    }
  }
  const finite = data.length - nan - inf;
  return {
    shape,
    dtype,
    layout,
    size: data.length,
    l2: Math.sqrt(sumSq),
    rms: finite ? Math.sqrt(sumSq / finite) : 0,
    mean: finite ? sum / finite : 0,
    maxAbs: Math.max(maxAbs, 0),
    maxAbsAt: unravel(at, shape),
    nanCount: nan,
    infCount: inf,
  };
}

/** Stats of one tensor, launched on the device: the tensors to read back (owned: disposed once read) and how to finish. */
export interface StatsJob {
  reads: tfc.Tensor[];
  finish(values: ArrayLike<number>[]): TensorStats;
}

/**
 * Stats of a device tensor from per-row reductions only (rows = all but the last axis), finished
 * in float64 on the host: every reduction runs across many workgroups (a whole-tensor argMax on
 * WebGPU runs in one), a 268M-element logits tensor never crosses the bus, and no long float32
 * sum loses precision. The generic path, for backends without a fused kernel (Runtime.stats).
 */
export async function deviceStats(tf: typeof tfc, x: tfc.Tensor, layout: string): Promise<TensorStats> {
  if (x.size === 0) return hostStats([], x.shape.slice(), 'float32', layout);
  const job = launchDeviceStats(tf, x, layout);
  try {
    return job.finish(await Promise.all(job.reads.map((t) => t.data())));
  } finally {
    tf.dispose(job.reads);
  }
}

/** deviceStats' reductions, launched, not read: x must have at least one element. */
export function launchDeviceStats(tf: typeof tfc, x: tfc.Tensor, layout: string): StatsJob {
  const shape = x.shape.slice();
  const cols = shape.length ? (shape[shape.length - 1] as number) : 1;
  const rows = x.size / cols;
  const reads = tf.tidy(() => {
    const x2 = tf.reshape(x, [rows, cols]);
    const finite = tf.isFinite(x2);
    const clean = tf.where(finite, x2, tf.zerosLike(x2));
    const abs = tf.abs(clean);
    const count = (m: tfc.Tensor) => tf.sum(tf.cast(m, 'int32'), 1);
    return [
      tf.stack([tf.sum(tf.square(clean), 1), tf.sum(clean, 1), tf.max(abs, 1)]), // [3, rows]
      tf.stack([tf.argMax(abs, 1), count(tf.isNaN(x2)), count(tf.logicalNot(finite))]), // [3, rows]
    ];
  });
  return { reads, finish: ([f, n]) => rowStats(f!, n!, rows, cols, shape, layout) };
}

/** TensorStats from deviceStats' per-row [3, rows] floats and ints, in float64. */
function rowStats(f: ArrayLike<number>, n: ArrayLike<number>, rows: number, cols: number, shape: number[], layout: string): TensorStats {
  const size = rows * cols;
  let sumSq = 0,
    sum = 0,
    maxAbs = -1,
    at = 0,
    nanCount = 0,
    nonFinite = 0;
  for (let r = 0; r < rows; r++) {
    sumSq += f[r] as number;
    sum += f[rows + r] as number;
    if ((f[2 * rows + r] as number) > maxAbs) {
      maxAbs = f[2 * rows + r] as number;
      at = r * cols + (n[r] as number);
    }
    nanCount += n[rows + r] as number;
    nonFinite += n[2 * rows + r] as number;
  }
  const infCount = nonFinite - nanCount;
  const finite = size - nonFinite;
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
