import type * as tfc from '@tensorflow/tfjs-core';
import type { MlaBackend, PieceInput } from '../../paths/backend';
import { NULL_PROBE } from '../../core/probes/probe';
import type { TensorRecorder } from '../../core/probes/tensor-recorder';

/**
 * One piece through every device path, pipelined: each path's step is encoded (its programs
 * enqueued and its taps' statistics launched, their read-back started: TensorRecorder.settle)
 * before any path is awaited, so the GPU runs one path while the host encodes the next; then
 * every step's one-element read is awaited. A path's
 * seconds run from the start of its encoding to its completion, which waits for the paths
 * enqueued before it (the GPU runs them in order): they add up to more than the wall time.
 * A `cached` piece only fills each path's cache; a null recorder records nothing.
 * `serial`: each path awaited before the next is encoded. A long piece's GPU work (seconds) dwarfs its
 * encoding (milliseconds), so pipelining buys nothing there, and it costs memory: the host allocates every
 * path's temporaries at once, and Dawn recycles what tfjs's pool destroys only once the GPU has passed it
 * and the host yields (GLM-5 at 64 heads, 128k: 46 GiB of GPU memory against a live set of 19); `between`
 * runs after each path there (Runtime.settle: the pool back to its budget before the next path allocates).
 */
export async function stepPaths(
  paths: readonly MlaBackend<tfc.Tensor>[],
  recorders: readonly (TensorRecorder | null)[],
  piece: PieceInput,
  serial = false,
  between?: () => Promise<void>,
): Promise<number[]> {
  const since = (t0: number) => () => (performance.now() - t0) / 1000;
  if (piece.kind === 'cached') {
    const out: number[] = [];
    for (const path of paths) out.push(await path.fill(piece).then(since(performance.now())));
    return out;
  }
  const encode = (path: MlaBackend<tfc.Tensor>, i: number) => {
    const t0 = performance.now();
    const rec = recorders[i] ?? null;
    rec?.at(piece);
    const step = path.step(piece, rec ?? NULL_PROBE).then(since(t0)); // enqueued here, synchronously; its read is awaited below
    rec?.settle(); // the stats' read-back travels with the step's read, not after it
    return step;
  };
  if (!serial) return Promise.all(paths.map(encode));
  const out: number[] = [];
  for (const [i, path] of paths.entries()) {
    out.push(await encode(path, i));
    if (i < paths.length - 1) await between?.();
  }
  return out;
}
