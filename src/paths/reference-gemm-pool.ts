/**
 * The reference's float64 GEMM on a pool of worker threads, where no BLAS is found: op(A) and op(B)
 * packed into a SharedArrayBuffer arena, the rows (or, for a few rows, the columns) of C split across
 * the workers, the caller blocked in Atomics.wait until all are done (the reference runs on its own
 * thread: blocking it is allowed). The workers run ntKernel's own source (eval workers: no compiled
 * entry file, so ts-jest runs the same pool). Products under POOL_MIN_MACS stay on the caller.
 */
import type * as WorkerThreads from 'node:worker_threads';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Dgemm, Gemm64 } from './reference-gemm';
import { jsDgemm, ntKernel, packRows, scaleC } from './reference-gemm';

/** Below this many multiply-adds (~1 ms of one core) a product stays on the calling thread. */
export const POOL_MIN_MACS = 1 << 20;

/** Int32 slots of the control block: job generation, workers done, arena generation, stop, workers ready. */
const [GEN, DONE, ARENA, STOP, READY] = [0, 1, 2, 3, 4];
/** Float64 slots after them: m, n, k, alpha, A, B, R (arena offsets), split axis (0 rows, 1 columns). */
const PARAMS = 8; // Int32 slots before the Float64 parameters (32 bytes)

/** A worker: waits for a job, multiplies its share of rows or columns into R, counts itself done. */
function poolWorker(wt: typeof WorkerThreads, kernel: typeof ntKernel): void {
  const { control, port, index, workers } = wt.workerData as {
    control: SharedArrayBuffer;
    port: WorkerThreads.MessagePort;
    index: number;
    workers: number;
  };
  const ctl = new Int32Array(control, 0, PARAMS);
  const par = new Float64Array(control, PARAMS * 4, 8);
  let arena: Float64Array = new Float64Array(0);
  let [seen, arenaGen] = [0, 0];
  Atomics.add(ctl, READY, 1);
  Atomics.notify(ctl, READY);
  for (;;) {
    Atomics.wait(ctl, GEN, seen);
    seen = Atomics.load(ctl, GEN);
    if (Atomics.load(ctl, STOP)) return;
    if (Atomics.load(ctl, ARENA) !== arenaGen) {
      for (let m = wt.receiveMessageOnPort(port); m; m = wt.receiveMessageOnPort(port))
        arena = new Float64Array(m.message as SharedArrayBuffer);
      arenaGen = Atomics.load(ctl, ARENA);
    }
    const int = (i: number) => par[i]! | 0; // small integers: indices the JIT keeps as such (doubles halve the kernel's speed)
    const [m, n, k, A, B, R, axis] = [int(0), int(1), int(2), int(4), int(5), int(6), int(7)];
    const alpha = par[3]!;
    const len = axis === 0 ? m : n;
    const unit = axis === 0 ? 16 : 1; // rows in ntKernel's blocks of 16: each sum as the caller's plain loops make it
    const cut = (i: number) => (i === workers ? len : Math.floor((i * len) / workers / unit) * unit) | 0;
    const [lo, hi] = [cut(index), cut(index + 1)];
    if (hi > lo) {
      if (axis === 0) kernel(hi - lo, n, k, alpha, arena.subarray(A + lo * k), k, arena.subarray(B), k, 0, arena.subarray(R + lo * n), n);
      else kernel(m, hi - lo, k, alpha, arena.subarray(A), k, arena.subarray(B + lo * k), k, 0, arena.subarray(R + lo), n);
    }
    if (Atomics.add(ctl, DONE, 1) === workers - 1) Atomics.notify(ctl, DONE);
  }
}

/** The workers' source: poolWorker and ntKernel as compiled, the slot constants inlined. */
const workerSource = (): string =>
  `const [GEN, DONE, ARENA, STOP, READY, PARAMS] = [${[GEN, DONE, ARENA, STOP, READY, PARAMS].join(', ')}];\n` +
  `(${poolWorker.toString()})(require('node:worker_threads'), ${ntKernel.toString()});`;

/** A pool's GEMM and how to stop it; `close` before the job ends (the workers hold the process). */
export interface GemmPool extends Gemm64 {
  close(): Promise<void>;
}

/** Start `workers` threads; null when they do not all start within `startMs` (the caller multiplies alone). */
export function createGemmPool(workers: number, startMs = 10_000): GemmPool | null {
  const control = new SharedArrayBuffer(PARAMS * 4 + 8 * 8);
  const ctl = new Int32Array(control, 0, PARAMS);
  const par = new Float64Array(control, PARAMS * 4, 8);
  const ports: WorkerThreads.MessagePort[] = [];
  const threads: Worker[] = [];
  for (let index = 0; index < workers; index++) {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1);
    const w = new Worker(workerSource(), { eval: true, workerData: { control, port: port2, index, workers }, transferList: [port2] });
    w.unref();
    w.on('error', () => {}); // a worker that fails to start shows as a pool that is not ready
    threads.push(w);
  }
  const close = async () => {
    Atomics.store(ctl, STOP, 1);
    Atomics.add(ctl, GEN, 1);
    Atomics.notify(ctl, GEN);
    for (const p of ports) p.close();
    await Promise.all(threads.map((w) => w.terminate()));
  };
  const t0 = performance.now();
  for (let r = Atomics.load(ctl, READY); r < workers; r = Atomics.load(ctl, READY)) {
    if (performance.now() - t0 > startMs) {
      void close();
      return null;
    }
    Atomics.wait(ctl, READY, r, 50);
  }
  let arena: Float64Array = new Float64Array(0);
  const room = (need: number) => {
    if (arena.length >= need) return;
    arena = new Float64Array(new SharedArrayBuffer(8 * Math.ceil(need * 1.25)));
    for (const p of ports) p.postMessage(arena.buffer);
    Atomics.add(ctl, ARENA, 1);
  };
  const dgemm: Dgemm = (transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) => {
    if (m * n * k < POOL_MIN_MACS || alpha === 0 || (m + n) * k + m * n >= 2 ** 31)
      return jsDgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (k === 0) return scaleC(m, n, beta, c, ldc);
    const [A, B, R] = [0, m * k, m * k + n * k];
    room(R + m * n);
    packRows(a, lda, transA, m, k, arena.subarray(A, B));
    packRows(b, ldb, !transB, n, k, arena.subarray(B, R));
    par.set([m, n, k, alpha, A, B, R, m >= 4 * workers || m >= n ? 0 : 1]);
    Atomics.store(ctl, DONE, 0);
    Atomics.add(ctl, GEN, 1);
    Atomics.notify(ctl, GEN);
    for (let d = Atomics.load(ctl, DONE); d < workers; d = Atomics.load(ctl, DONE)) Atomics.wait(ctl, DONE, d);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        const r = arena[R + i * n + j]!; // alpha·Σ already
        c[i * ldc + j] = beta === 0 ? r : r + beta * c[i * ldc + j]!;
      }
  };
  return { kind: 'pool', description: `plain loops on ${workers} worker threads`, threads: workers, dgemm, close };
}
