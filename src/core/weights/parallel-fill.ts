import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { NormalGrid } from './grid';
import { fillGrid } from './grid';

/**
 * A grid filled by several threads at once, synchronously (WeightSource.block is synchronous): the values are a pure
 * function of (key, index), so which thread makes a chunk changes no bit. The main thread and the workers claim
 * chunks of lines from one shared counter; the main thread writes its chunks straight into dst, the workers theirs
 * too when dst is backed by a SharedArrayBuffer, else into one that the main thread copies from (that copy, the
 * first touch of a fresh dst, is most of what is left: 0.24 s of o_proj's 0.32 s on 16 cores, bench/cli/results.md).
 * A worker that is slow to start claims less; one that never starts, or fails, leaves its chunks to the main thread.
 * No state outlives a call: the workers exit when the counter runs out.
 */

/** Elements of a chunk (1 MB of float32, a millisecond or two of work). */
export const CHUNK_ELEMENTS = 1 << 18;
/** Fewer cores than this fill on one thread: on a 2-core VM with costly first touches the copy made it slower. */
export const MIN_CORES = 4;
/** Elements per thread below which another thread does not pay for its start (a worker starts in ~10-30 ms). */
export const ELEMENTS_PER_THREAD = 1 << 21;
/** How long the main thread waits, in all, on chunks that workers claimed before making them itself. */
const WAIT_MS = 10_000;
const DONE = 1;
const FAILED = 2;

/**
 * What a worker gets: the grid, the shared output (the grid's element 0 at element `at`), and the shared counter
 * (control[0]) and chunk states (control[1 + c]: 0 pending, DONE, FAILED).
 */
export interface FillShare {
  grid: NormalGrid;
  out: SharedArrayBuffer;
  at: number;
  control: SharedArrayBuffer;
  chunkLines: number;
}

/** The worker entry beside this module in dist/; null under ts-jest, which runs this file as TypeScript source. */
export function fillWorkerEntry(dir: string = __dirname): string | null {
  const entry = join(dir, 'fill-worker.js');
  return existsSync(entry) ? entry : null;
}

/** Threads for n elements: one per ELEMENTS_PER_THREAD, at most `cores`, at least one; one below MIN_CORES. */
export function fillThreads(n: number, cores: number = availableParallelism()): number {
  return cores < MIN_CORES ? 1 : Math.max(1, Math.min(cores, Math.floor(n / ELEMENTS_PER_THREAD)));
}

/** A worker's loop: claim a chunk, fill it into the shared output, mark it done (or failed), until none is left. */
export function fillShare(s: FillShare): void {
  const control = new Int32Array(s.control);
  const out = new Float32Array(s.out, 4 * s.at, s.grid.lines * s.grid.len);
  const chunks = control.length - 1;
  for (let c = Atomics.add(control, 0, 1); c < chunks; c = Atomics.add(control, 0, 1)) {
    let state = DONE;
    try {
      fillGrid(s.grid, out, c * s.chunkLines, Math.min(s.grid.lines, (c + 1) * s.chunkLines));
    } catch {
      state = FAILED;
    }
    Atomics.store(control, 1 + c, state);
    Atomics.notify(control, 1 + c);
  }
}

/** Fills dst with `grid` on `threads` threads (the worker entry: fillWorkerEntry()); on one, or without an entry, plainly. */
export function parallelFill(grid: NormalGrid, dst: Float32Array, threads: number, entry: string | null): void {
  const chunkLines = Math.max(1, Math.floor(CHUNK_ELEMENTS / grid.len));
  const chunks = Math.ceil(grid.lines / chunkLines);
  if (threads <= 1 || chunks <= 1 || entry === null) return fillGrid(grid, dst);
  const direct = dst.buffer instanceof SharedArrayBuffer;
  const share: FillShare = {
    grid,
    out: direct ? (dst.buffer as SharedArrayBuffer) : new SharedArrayBuffer(4 * grid.lines * grid.len),
    at: direct ? dst.byteOffset / 4 : 0,
    control: new SharedArrayBuffer(4 * (1 + chunks)),
    chunkLines,
  };
  for (let t = 1; t < Math.min(threads, chunks); t++) startWorker(entry, share);
  const control = new Int32Array(share.control);
  const mine = new Uint8Array(chunks);
  const lines = (c: number): [number, number] => [c * chunkLines, Math.min(grid.lines, (c + 1) * chunkLines)];
  for (let c = Atomics.add(control, 0, 1); c < chunks; c = Atomics.add(control, 0, 1)) {
    mine[c] = 1;
    fillGrid(grid, dst, ...lines(c));
  }
  const out = new Float32Array(share.out, 4 * share.at, grid.lines * grid.len);
  const deadline = performance.now() + WAIT_MS;
  for (let c = 0; c < chunks; c++) {
    if (mine[c]) continue;
    for (let left = deadline - performance.now(); Atomics.load(control, 1 + c) === 0 && left > 0; left = deadline - performance.now()) {
      Atomics.wait(control, 1 + c, 0, left);
    }
    const [l0, l1] = lines(c);
    if (Atomics.load(control, 1 + c) !== DONE) fillGrid(grid, dst, l0, l1);
    else if (!direct) dst.set(out.subarray(l0 * grid.len, l1 * grid.len), l0 * grid.len);
  }
}

/** A worker that exits by itself when the chunks run out; its failures are covered by the main thread, so only swallowed here. */
function startWorker(entry: string, share: FillShare): void {
  try {
    new Worker(entry, { workerData: share }).on('error', () => {}).unref();
  } catch {
    // the main thread makes the chunks this worker would have claimed
  }
}
