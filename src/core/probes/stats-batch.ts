import type * as tfc from '@tensorflow/tfjs-core';
import type { HostView } from './recorder';
import type { StatsJob, TensorStats } from './stats';
import { hostStats, launchDeviceStats } from './stats';
import type { StatsKernel } from './stats-partials';
import { PARTIAL_WIDTH, partialRows, statsFromPartials } from './stats-partials';

/** A tensor's stats: known now (host view, empty tensor) or launched on the device. */
export type LaunchedStats = TensorStats | StatsJob;

/**
 * Starts the stats of x without waiting: from the zero-copy host view where the backend has one
 * (computed here, while the view is valid), from the fused kernel for a float32 tensor where the
 * device offers one, else from deviceStats' generic reductions.
 */
export function launchStats(tf: typeof tfc, x: tfc.Tensor, layout: string, view: HostView, kernel?: StatsKernel): LaunchedStats {
  const shape = x.shape.slice();
  const v = view(x);
  if (v) return hostStats(v, shape, 'float32', layout);
  if (x.size === 0) return hostStats([], shape, 'float32', layout);
  if (kernel && x.dtype === 'float32') {
    const partials = kernel.launch(x); // [G·PARTIAL_WIDTH]
    return { reads: [partials], finish: ([p]) => statsFromPartials(p!, kernel.groupSize, shape, layout) };
  }
  return launchDeviceStats(tf, x, layout);
}

/** Elements [from, to) of read-back values: a view of a typed array (what a float32 read gives), else a copy. */
const rowsOf = (p: ArrayLike<number>, from: number, to: number): ArrayLike<number> =>
  p instanceof Float32Array ? p.subarray(from, to) : (Array.prototype.slice.call(p, from, to) as number[]);

/**
 * The stats of several float32 tensors from one dispatch of the kernel's launchMany: one partials
 * tensor [ΣG·PARTIAL_WIDTH], kept, that every job reads its own rows of (settleStats frees it once).
 */
export function launchStatsMany(tf: typeof tfc, kernel: StatsKernel, xs: readonly { x: tfc.Tensor; layout: string }[]): StatsJob[] {
  const partials = tf.keep(kernel.launchMany!(xs.map((t) => t.x))); // [ΣG·PARTIAL_WIDTH]
  let row = 0;
  return xs.map(({ x, layout }) => {
    const [from, to, shape] = [row * PARTIAL_WIDTH, (row + partialRows(x.size, kernel.groupSize)) * PARTIAL_WIDTH, x.shape.slice()];
    row = to / PARTIAL_WIDTH;
    return { reads: [partials], finish: ([p]) => statsFromPartials(rowsOf(p!, from, to), kernel.groupSize, shape, layout) };
  });
}

const isJob = (s: LaunchedStats): s is StatsJob => 'reads' in s;

/**
 * Reads every launched job back together and finishes it; frees the read tensors. The float32
 * reads are joined into one tensor on the device first: one read-back (one buffer map) for all of
 * them, not one each (~2 ms apiece through Dawn in Node).
 */
export async function settleStats(tf: typeof tfc, launched: readonly LaunchedStats[]): Promise<TensorStats[]> {
  try {
    const reads = [...new Set(launched.flatMap((s) => (isJob(s) ? s.reads : [])))]; // batched jobs share one partials tensor
    const floats = reads.filter((t) => t.dtype === 'float32' && t.size > 0);
    // [Σ sizes]: kept, read after any enclosing tidy ends
    const joined = floats.length > 1 ? tf.keep(tf.tidy(() => tf.concat(floats.map((t) => tf.reshape(t, [t.size]))))) : null;
    const values = new Map<tfc.Tensor, ArrayLike<number>>();
    try {
      const all = joined ? ((await joined.data()) as Float32Array) : null;
      let at = 0;
      if (all)
        for (const t of floats) {
          values.set(t, all.subarray(at, at + t.size));
          at += t.size;
        }
      await Promise.all(reads.filter((t) => !values.has(t)).map(async (t) => values.set(t, await t.data())));
    } finally {
      joined?.dispose();
    }
    return launched.map((s) => (isJob(s) ? s.finish(s.reads.map((t) => values.get(t)!)) : s));
  } finally {
    disposeLaunched(tf, launched);
  }
}

/** Frees what launched jobs hold (settleStats does; for a launch loop that failed half way). */
export function disposeLaunched(tf: typeof tfc, launched: readonly LaunchedStats[]): void {
  for (const s of launched) if (isJob(s)) tf.dispose(s.reads);
}
