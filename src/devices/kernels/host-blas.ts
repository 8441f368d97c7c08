import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { MlaDiffError } from '../../errors';

/**
 * The host's BLAS (OpenBLAS, BLIS, MKL, Accelerate: whichever exports cblas_sgemm), called through
 * koffi's FFI on views of the wasm heap: no copy in or out. tfjs-backend-wasm multiplies on one
 * thread with 128-bit SIMD (19.8 GFLOP/s in the CPU benchmark); the library numpy itself
 * calls runs the same products on every core with the CPU's widest vectors (~180 GFLOP/s here).
 */
export interface HostBlas {
  /** e.g. `OpenBLAS 0.3.21 (SkylakeX kernels, 2 threads)`. */
  readonly description: string;
  /** Row-major C[m,n] = op(A)·op(B), float32; op = transpose where asked. */
  sgemm(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: Float32Array,
    lda: number,
    b: Float32Array,
    ldb: number,
    c: Float32Array,
    ldc: number,
  ): void;
  /**
   * Row-major C[m,n] = alpha·op(A)·op(B) + beta·C, float64 (cblas_dgemm of the same library; absent
   * where it exports none): the float64 reference's products (src/paths/reference-gemm.ts).
   */
  readonly dgemm?: (
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
  /** Threads the library multiplies on (openblas_get_num_threads; the cores available where it does not say). */
  readonly threads: number;
}

/** MLA_DIFF_BLAS: `auto` (unset) tries the usual libraries, `off` keeps tfjs's own kernels, else a library path. */
export type BlasRequest = { kind: 'auto' } | { kind: 'off' } | { kind: 'path'; path: string };

export function parseBlasRequest(value: string | undefined): BlasRequest {
  const v = value?.trim() ?? '';
  if (v === '' || v === 'auto') return { kind: 'auto' };
  if (v === 'off' || v === '0' || v === 'none') return { kind: 'off' };
  return { kind: 'path', path: v };
}

/** Libraries that export cblas_sgemm, in order of preference (Debian's libblas.so.3 is OpenBLAS when libopenblas0 is installed). */
export const BLAS_CANDIDATES: readonly string[] = [
  'libopenblas.so.0',
  'libopenblas.so',
  'libmkl_rt.so.2',
  'libmkl_rt.so',
  'libblis.so.4',
  'libblas.so.3',
  'libopenblas.dylib',
  '/System/Library/Frameworks/Accelerate.framework/Accelerate',
];

/**
 * OPENBLAS_CORETYPE for this CPU, from /proc/cpuinfo's flags. OpenBLAS 0.3.21 (Debian bookworm) does
 * not know the virtual "Intel Xeon Processor" of cloud VMs and falls back to its Prescott (SSE3)
 * kernels: 37 GFLOP/s where SkylakeX's give 180 on the same two cores.
 */
export function openblasCoretype(cpuFlags: string): string | undefined {
  const has = (f: string) => new RegExp(`\\b${f}\\b`).test(cpuFlags);
  if (['avx512f', 'avx512bw', 'avx512vl', 'avx512dq', 'avx512cd'].every(has)) return 'SkylakeX';
  if (has('avx2') && has('fma')) return 'Haswell';
  return undefined;
}

function cpuFlags(): string {
  try {
    return /^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

// The part of koffi's API used here (its own typings are an ES module, this build is CommonJS).
type KoffiLib = { func(signature: string): (...args: unknown[]) => unknown; unload(): void };
type Koffi = { load(path: string): KoffiLib };
type Loaded = { blas: HostBlas } | { why: string };

function open(koffi: Koffi, name: string): Loaded {
  let lib: KoffiLib;
  try {
    lib = koffi.load(name);
  } catch (e) {
    return { why: `${e instanceof Error ? e.message.split('\n')[0] : String(e)}` };
  }
  let call: (...args: unknown[]) => unknown;
  try {
    call = lib.func(
      'void cblas_sgemm(int order, int transA, int transB, int m, int n, int k, float alpha, ' +
        'const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc)',
    );
  } catch {
    lib.unload();
    return { why: `${name} has no cblas_sgemm` };
  }
  let dcall: ((...args: unknown[]) => unknown) | undefined;
  try {
    dcall = lib.func(
      'void cblas_dgemm(int order, int transA, int transB, int m, int n, int k, double alpha, ' +
        'const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc)',
    );
  } catch {
    /* a single-precision-only library: the reference multiplies without it */
  }
  let description = `cblas_sgemm from ${name}`;
  let threads = availableParallelism();
  try {
    // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64"
    const config = String(lib.func('const char *openblas_get_config(void)')());
    threads = Number(lib.func('int openblas_get_num_threads(void)')());
    const [, version, core] = /^OpenBLAS (\S+).*?(\S+) MAX_THREADS/.exec(config) ?? [];
    description = `OpenBLAS ${version ?? ''} (${core ?? 'unknown'} kernels, ${threads} thread${threads === 1 ? '' : 's'})`.replace(
      '  ',
      ' ',
    );
  } catch {
    /* not OpenBLAS: keep the library's name */
  }
  const [ROW_MAJOR, NO_TRANS, TRANS] = [101, 111, 112];
  const op = (t: boolean) => (t ? TRANS : NO_TRANS);
  const d = dcall;
  const dgemm: HostBlas['dgemm'] =
    d &&
    ((tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) => {
      d(ROW_MAJOR, op(tA), op(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    });
  return {
    blas: {
      description,
      threads,
      sgemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc) {
        call(ROW_MAJOR, op(transA), op(transB), m, n, k, 1, a, lda, b, ldb, 0, c, ldc);
      },
      ...(dgemm && { dgemm }),
    },
  };
}

/**
 * The device line's hint where wasm found no BLAS by itself: what to install and what it buys. On this project's 2-core
 * VM a GLM-5 layer at 512 tokens (64 heads) ran 2.3-2.6× faster through OpenBLAS end to end, its products ~9×; the
 * 5-token main job only ~1.1× (weight synthesis and the float64 reference dominate it).
 */
export function noBlasHint(platform: NodeJS.Platform = process.platform): string {
  const how =
    platform === 'linux'
      ? 'apt-get install libopenblas0-pthread'
      : platform === 'darwin'
        ? 'brew install openblas, then MLA_DIFF_BLAS=$(brew --prefix openblas)/lib/libopenblas.dylib'
        : 'MLA_DIFF_BLAS=<a library that exports cblas_sgemm>';
  return `no host BLAS (${how}: ~2× faster at 512 tokens and more)`;
}

/**
 * The host BLAS as asked: null for `off`, or for `auto` when no library loads (`why` says what was
 * tried). A path that does not load is the user's error: device-unavailable, exit 2.
 */
export function loadHostBlas(request: BlasRequest, env: NodeJS.ProcessEnv = process.env): { blas: HostBlas | null; why: string } {
  if (request.kind === 'off') return { blas: null, why: 'MLA_DIFF_BLAS=off' };
  let koffi: Koffi;
  try {
    koffi = require('koffi') as Koffi;
  } catch (e) {
    if (request.kind === 'path')
      throw new MlaDiffError(
        'device-unavailable',
        `koffi (the FFI that calls ${request.path}) does not load here`,
        { field: 'MLA_DIFF_BLAS' },
        'reinstall with `npm ci`, or unset MLA_DIFF_BLAS',
      );
    return { blas: null, why: `koffi does not load (${e instanceof Error ? e.message.split('\n')[0] : String(e)})` };
  }
  // Read by OpenBLAS's constructor when the library loads: set it first, and never over the user's own.
  if (env['OPENBLAS_CORETYPE'] === undefined) {
    const core = openblasCoretype(cpuFlags());
    if (core) env['OPENBLAS_CORETYPE'] = core;
  }
  const names = request.kind === 'path' ? [request.path] : BLAS_CANDIDATES;
  const tried: string[] = [];
  for (const name of names) {
    const r = open(koffi, name);
    if ('blas' in r) return { blas: r.blas, why: name };
    tried.push(r.why);
  }
  if (request.kind === 'path') {
    throw new MlaDiffError(
      'device-unavailable',
      `${request.path} does not load as a BLAS (${tried[0]})`,
      { field: 'MLA_DIFF_BLAS' },
      'give the path of a library that exports cblas_sgemm (e.g. /usr/lib/x86_64-linux-gnu/libopenblas.so.0), or unset MLA_DIFF_BLAS',
    );
  }
  return {
    blas: null,
    why: `no BLAS library found (install Debian's libopenblas0-pthread for ~9x faster products; tried ${names.length})`,
  };
}
