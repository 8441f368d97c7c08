/**
 * The reference's float64 work on a pool of worker threads: the GEMM where no BLAS is found (op(A) and
 * op(B) packed into a SharedArrayBuffer arena, the rows, or for a few rows the columns, of C split
 * across the workers), and the attention's softmax rows beside any GEMM (one exp per visible key is
 * most of the time the BLAS leaves: ~28 ns each on one Xeon core). The caller blocks in Atomics.wait
 * until all are done (the reference runs on its own thread: blocking it is allowed). The workers run
 * ntKernel's and softmaxRows' own source (eval workers: no compiled entry file, so ts-jest runs the
 * same pool). Work under POOL_MIN_MACS / POOL_MIN_ROWS stays on the caller.
 */
import type * as WorkerThreads from 'node:worker_threads';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Dgemm, Gemm64 } from './reference-gemm';
import { jsDgemm, ntKernel, packRows, scaleC } from './reference-gemm';
import type { RowSoftmax } from './reference-softmax';
import { softmaxRows } from './reference-softmax';

/** Below this many multiply-adds (~1 ms of one core) a product stays on the calling thread. */
export const POOL_MIN_MACS = 1 << 20;
/** Below this many logits (~0.5 ms of one core) a softmax block stays on the calling thread. */
export const POOL_MIN_SOFTMAX = 1 << 14;

/** Int32 slots of the control block: job generation, workers done, arena generation, stop, workers ready. */
const [GEN, DONE, ARENA, STOP, READY] = [0, 1, 2, 3, 4];
const PARAMS = 8; // Int32 slots before the Float64 parameters (32 bytes)
/**
 * Float64 parameters: [0] the op. GEMM (0): m, n, k, alpha, A, B, R (arena offsets), split axis (0 rows,
 * 1 columns). Softmax (1): n, w, base, X, P, LSE, MAX (arena offsets), empty.
 */
const NPAR = 10;

/** A worker: waits for a job, does its share of rows or columns, counts itself done. */
function poolWorker(wt: typeof WorkerThreads, kernel: typeof ntKernel, softmax: typeof softmaxRows): void {
  const { control, port, index, workers } = wt.workerData as {
    control: SharedArrayBuffer;
    port: WorkerThreads.MessagePort;
    index: number;
    workers: number;
  };
  const ctl = new Int32Array(control, 0, PARAMS);
  const par = new Float64Array(control, PARAMS * 4, NPAR);
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
    const share = (len: number, unit: number) => {
      const cut = (i: number) => (i === workers ? len : Math.floor((i * len) / workers / unit) * unit) | 0;
      return [cut(index), cut(index + 1)] as const;
    };
    if (int(0) === 0) {
      const [m, n, k, A, B, R, axis] = [int(1), int(2), int(3), int(5), int(6), int(7), int(8)];
      const alpha = par[4]!;
      // rows in ntKernel's blocks of 16: each sum as the caller's plain loops make it
      const [lo, hi] = axis === 0 ? share(m, 16) : share(n, 1);
      if (hi > lo && axis === 0)
        kernel(hi - lo, n, k, alpha, arena.subarray(A + lo * k), k, arena.subarray(B), k, 0, arena.subarray(R + lo * n), n);
      else if (hi > lo) kernel(m, hi - lo, k, alpha, arena.subarray(A), k, arena.subarray(B + lo * k), k, 0, arena.subarray(R + lo), n);
    } else {
      const [n, w, X, P, LSE, MAX] = [int(1), int(2), int(4), int(5), int(6), int(7)];
      const [base, empty] = [par[3]!, par[8]!];
      const [lo, hi] = share(n, 1);
      if (hi > lo) {
        const [x, p] = [arena.subarray(X + lo * w), arena.subarray(P + lo * w)];
        softmax(hi - lo, w, x, w, base + lo, p, arena.subarray(LSE + lo), arena.subarray(MAX + lo), empty);
      }
    }
    if (Atomics.add(ctl, DONE, 1) === workers - 1) Atomics.notify(ctl, DONE);
  }
}

/** The workers' source: poolWorker, ntKernel and softmaxRows as compiled, the slot constants inlined. */
const workerSource = (): string =>
  `const [GEN, DONE, ARENA, STOP, READY, PARAMS, NPAR] = [${[GEN, DONE, ARENA, STOP, READY, PARAMS, NPAR].join(', ')}];\n` +
  `(${poolWorker.toString()})(require('node:worker_threads'), ${ntKernel.toString()}, ${softmaxRows.toString()});`;

/** A pool's GEMM and softmax, and how to stop it; `close` before the job ends (the workers hold the process). */
export interface GemmPool extends Gemm64 {
  readonly softmax: RowSoftmax;
  close(): Promise<void>;
}

/** Start `workers` threads; null when they do not all start within `startMs` (the caller multiplies alone). */
export function createGemmPool(workers: number, startMs = 10_000): GemmPool | null {
  const control = new SharedArrayBuffer(PARAMS * 4 + NPAR * 8);
  const ctl = new Int32Array(control, 0, PARAMS);
  const par = new Float64Array(control, PARAMS * 4, NPAR);
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
  const run = (params: number[]) => {
    par.set(params);
    Atomics.store(ctl, DONE, 0);
    Atomics.add(ctl, GEN, 1);
    Atomics.notify(ctl, GEN);
    for (let d = Atomics.load(ctl, DONE); d < workers; d = Atomics.load(ctl, DONE)) Atomics.wait(ctl, DONE, d);
  };
  const dgemm: Dgemm = (transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) => {
    if (m * n * k < POOL_MIN_MACS || alpha === 0 || (m + n) * k + m * n >= 2 ** 31)
      return jsDgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (k === 0) return scaleC(m, n, beta, c, ldc);
    const [A, B, R] = [0, m * k, m * k + n * k];
    room(R + m * n);
    packRows(a, lda, transA, m, k, arena.subarray(A, B));
    packRows(b, ldb, !transB, n, k, arena.subarray(B, R));
    run([0, m, n, k, alpha, A, B, R, m >= 4 * workers || m >= n ? 0 : 1]);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        const r = arena[R + i * n + j]!; // alpha·Σ already
        c[i * ldc + j] = beta === 0 ? r : r + beta * c[i * ldc + j]!;
      }
  };
  const softmax: RowSoftmax = (n, w, x, ldx, base, P, lse, max, empty) => {
    if (n * w < POOL_MIN_SOFTMAX || 2 * n * (w + 1) >= 2 ** 31) return softmaxRows(n, w, x, ldx, base, P, lse, max, empty);
    const [X, Pp, L, M] = [0, n * w, 2 * n * w, 2 * n * w + n];
    room(M + n);
    for (let i = 0; i < n; i++) arena.set(x.subarray(i * ldx, i * ldx + w), X + i * w);
    run([1, n, w, base, X, Pp, L, M, empty]);
    P.set(arena.subarray(Pp, Pp + n * w));
    lse.set(arena.subarray(L, L + n));
    max.set(arena.subarray(M, M + n));
  };
  const description = `plain loops on ${workers} worker threads`;
  return { kind: 'pool', description, threads: workers, dgemm, softmax, softmaxThreads: workers, close };
}
