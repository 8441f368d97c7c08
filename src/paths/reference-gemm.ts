/**
 * The float64 GEMM the reference multiplies through (issue 21): the host BLAS's cblas_dgemm, a pool
 * of worker threads (reference-gemm-pool.ts), or the plain loops below. Chosen by the run layer and
 * passed in: row-major C = alpha·op(A)·op(B) + beta·C, operands as typed-array views (an offset is
 * a subarray), leading dimensions as BLAS has them. beta = 0 does not read C.
 */
import type { HostBlas } from '../devices/kernels/host-blas';
import type { RowSoftmax } from './reference-softmax';

/** Where the reference's products run. */
export type Gemm64Kind = 'blas' | 'pool' | 'js';

/** Row-major C[m,n] = alpha·op(A)·op(B) + beta·C in float64; op(X) = Xᵀ where asked. */
export type Dgemm = (
  transA: boolean,
  transB: boolean,
  m: number,
  n: number,
  k: number,
  alpha: number,
  a: Float64Array,
  lda: number,
  b: Float64Array,
  ldb: number,
  beta: number,
  c: Float64Array,
  ldc: number,
) => void;

export interface Gemm64 {
  readonly kind: Gemm64Kind;
  /** e.g. `cblas_dgemm of OpenBLAS 0.3.21 (Haswell kernels, 2 threads)`, `plain loops, 1 thread`. */
  readonly description: string;
  /** Threads the products run on. */
  readonly threads: number;
  readonly dgemm: Dgemm;
  /** The attention's softmax rows on other threads (a pool's workers); absent: softmaxRows on the caller's. */
  readonly softmax?: RowSoftmax;
  /** Threads the softmax runs on (1 without `softmax`). */
  readonly softmaxThreads?: number;
}

/**
 * C[i, j] = alpha·Σ_p A[i, p]·B[j, p] (+ beta·C) for i < m, j < n: both operands row-major with
 * k contiguous (A [m,k] lda, B [n,k] ldb). Rows of A go in blocks of 16 and four at a time share
 * each load of B (V8 does not vectorize; ~0.8 GMAC/s on one core). Self-contained: the pool's
 * workers run its source (reference-gemm-pool.ts).
 */
export function ntKernel(
  m: number,
  n: number,
  k: number,
  alpha: number,
  a: Float64Array,
  lda: number,
  b: Float64Array,
  ldb: number,
  beta: number,
  c: Float64Array,
  ldc: number,
): void {
  const ROW_BLOCK = 16; // rows of A whose k values stay in cache while every row of B passes (inside: the workers run this source)
  const put = (i: number, acc: number) => {
    c[i] = beta === 0 ? (alpha === 1 ? acc : alpha * acc) : alpha * acc + beta * c[i]!;
  };
  for (let ib = 0; ib < m; ib += ROW_BLOCK) {
    const ie = Math.min(m, ib + ROW_BLOCK);
    for (let j = 0; j < n; j++) {
      const bj = j * ldb;
      let i = ib;
      for (; i + 3 < ie; i += 4) {
        const a0 = i * lda,
          a1 = a0 + lda,
          a2 = a1 + lda,
          a3 = a2 + lda;
        let s0 = 0,
          s1 = 0,
          s2 = 0,
          s3 = 0;
        for (let p = 0; p < k; p++) {
          const bp = b[bj + p]!;
          s0 += a[a0 + p]! * bp;
          s1 += a[a1 + p]! * bp;
          s2 += a[a2 + p]! * bp;
          s3 += a[a3 + p]! * bp;
        }
        put(i * ldc + j, s0);
        put((i + 1) * ldc + j, s1);
        put((i + 2) * ldc + j, s2);
        put((i + 3) * ldc + j, s3);
      }
      for (; i < ie; i++) {
        const a0 = i * lda;
        let s = 0,
          t = 0,
          p = 0;
        for (; p + 1 < k; p += 2) {
          s += a[a0 + p]! * b[bj + p]!;
          t += a[a0 + p + 1]! * b[bj + p + 1]!;
        }
        if (p < k) s += a[a0 + p]! * b[bj + p]!;
        put(i * ldc + j, s + t);
      }
    }
  }
}

/** op(X) of a row-major operand packed as [rows, k] (k contiguous) into y: X [rows, k] itself, or Xᵀ of X [k, rows]. */
export function packRows(
  x: Float64Array,
  ld: number,
  trans: boolean,
  rows: number,
  k: number,
  y: Float64Array = new Float64Array(rows * k),
): Float64Array {
  if (!trans) for (let r = 0; r < rows; r++) y.set(x.subarray(r * ld, r * ld + k), r * k);
  else for (let p = 0; p < k; p++) for (let r = 0; r < rows; r++) y[r * k + p] = x[p * ld + r]!;
  return y;
}

/** C = beta·C over an [m, n] block (k = 0: no products), beta = 0 writing zeros. */
export function scaleC(m: number, n: number, beta: number, c: Float64Array, ldc: number): void {
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) c[i * ldc + j] = beta === 0 ? 0 : beta * c[i * ldc + j]!;
}

/** The plain loops on this thread: op(B) packed as [n,k] where B is not already, op(A) where it is transposed. */
export const jsDgemm: Dgemm = (transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) => {
  if (m === 0 || n === 0) return;
  if (k === 0 || alpha === 0) return scaleC(m, n, beta, c, ldc);
  const [A, la] = transA ? [packRows(a, lda, true, m, k), k] : [a, lda];
  const [B, lb] = transB ? [b, ldb] : [packRows(b, ldb, true, n, k), k];
  ntKernel(m, n, k, alpha, A, la, B, lb, beta, c, ldc);
};

export const JS_GEMM: Gemm64 = { kind: 'js', description: 'plain loops, 1 thread', threads: 1, dgemm: jsDgemm };

/** The host BLAS's cblas_dgemm, or null where the library exports none. */
export function blasGemm(blas: HostBlas): Gemm64 | null {
  const d = blas.dgemm;
  if (!d) return null;
  // Empty products never reach the library: it rejects a leading dimension of 0 (xerbla on stderr) and computes nothing.
  const dgemm: Dgemm = (transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) => {
    if (m === 0 || n === 0) return;
    if (k === 0) return scaleC(m, n, beta, c, ldc);
    d(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  return { kind: 'blas', description: `cblas_dgemm of ${blas.description}`, threads: blas.threads, dgemm };
}

/** x widened to float64 (exact) into y (its first x.length), for the products: a plain loop, ~5× TypedArray.set across element types. */
export function widen(x: Float32Array, y: Float64Array = new Float64Array(x.length)): Float64Array {
  for (let i = 0; i < x.length; i++) y[i] = x[i]!;
  return y;
}
