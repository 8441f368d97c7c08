/**
 * Which float64 GEMM the reference gets: the host BLAS's cblas_dgemm where one loads (MLA_DIFF_BLAS
 * as for the wasm device's sgemm: `off` keeps the reference off it too), else a pool of worker
 * threads over the cores, else the plain loops on the reference's own thread. With more than one
 * core the attention's softmax runs on a pool's workers either way.
 */
import { availableParallelism } from 'node:os';
import type { BlasRequest } from '../devices/kernels/host-blas';
import { loadHostBlas } from '../devices/kernels/host-blas';
import type { Gemm64, Gemm64Kind } from './reference-gemm';
import { JS_GEMM, blasGemm } from './reference-gemm';
import { createGemmPool } from './reference-gemm-pool';

/** What to ask for: the first that exists of blas, pool, js (`auto`), or one of them. */
export type GemmRequest = Gemm64Kind | 'auto';

/** The GEMM a reference run will multiply through, known before any worker starts (planReference's estimate). */
export type GemmPlan = Pick<Gemm64, 'kind' | 'threads' | 'description' | 'softmaxThreads'>;

const poolPlan = (workers: number): GemmPlan => ({
  kind: 'pool',
  threads: workers,
  description: `plain loops on ${workers} worker threads`,
  softmaxThreads: workers,
});

/** The host GEMM with its softmax on `cores` workers (the description says so). */
const withSoftmax = (host: GemmPlan, cores: number): GemmPlan =>
  cores > 1 ? { ...host, description: `${host.description}, softmax on ${cores} worker threads`, softmaxThreads: cores } : host;

/** The BLAS's GEMM where `want` allows it and one loads with cblas_dgemm, else null. */
function hostGemm(blas: BlasRequest, want: GemmRequest): Gemm64 | null {
  if (want !== 'auto' && want !== 'blas') return null;
  const host = loadHostBlas(blas).blas;
  return host && blasGemm(host);
}

/** Which GEMM openReferenceGemm will give (a pool of `cores` workers where no BLAS, one core: the plain loops). */
export function planReferenceGemm(blas: BlasRequest, want: GemmRequest = 'auto', cores = availableParallelism()): GemmPlan {
  const host = hostGemm(blas, want);
  if (host) return withSoftmax(host, cores);
  if ((want === 'auto' || want === 'pool') && cores > 1) return poolPlan(cores);
  return JS_GEMM;
}

/** The reference's GEMM and how to release it (the pool's workers); a pool that does not start gives the plain loops. */
export function openReferenceGemm(
  blas: BlasRequest,
  want: GemmRequest = 'auto',
  cores = availableParallelism(),
): Gemm64 & { close(): Promise<void> } {
  const host = hostGemm(blas, want);
  const pool = cores > 1 && want !== 'js' ? createGemmPool(cores) : null;
  if (host && pool) return { ...host, ...withSoftmax(host, cores), softmax: pool.softmax, close: pool.close };
  if (host) return { ...host, close: async () => {} };
  if (pool && (want === 'auto' || want === 'pool')) return pool;
  void pool?.close();
  return { ...JS_GEMM, close: async () => {} };
}
