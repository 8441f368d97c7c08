import { MlaDiffError } from '../../errors';
import { loadHostBlas, openblasCoretype, parseBlasRequest } from './host-blas';

// CI installs Debian's OpenBLAS and sets this: there a missing BLAS fails rather than skips.
const REQUIRE = process.env['MLA_DIFF_REQUIRE_BLAS'] === '1';

/** Row-major op(A)·op(B) in float64, the plain way. */
function naive(
  tA: boolean,
  tB: boolean,
  m: number,
  n: number,
  k: number,
  a: Float32Array | Float64Array,
  lda: number,
  b: Float32Array | Float64Array,
  ldb: number,
): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (tA ? a[p * lda + i]! : a[i * lda + p]!) * (tB ? b[j * ldb + p]! : b[p * ldb + j]!);
      c[i * n + j] = s;
    }
  return c;
}

describe('parseBlasRequest', () => {
  it.each([
    [undefined, 'auto'],
    ['', 'auto'],
    ['auto', 'auto'],
    ['off', 'off'],
    ['0', 'off'],
    ['none', 'off'],
    ['/opt/lib/libblis.so', 'path'],
  ])('%p -> %s', (v, kind) => {
    expect(parseBlasRequest(v).kind).toBe(kind);
  });
});

describe('openblasCoretype', () => {
  it('picks SkylakeX kernels on AVX-512, Haswell on AVX2+FMA, nothing below', () => {
    expect(openblasCoretype(' fpu sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16')).toBe('SkylakeX');
    expect(openblasCoretype(' fpu sse2 avx avx2 fma avx512f')).toBe('Haswell'); // AVX-512 foundation alone is not SkylakeX
    expect(openblasCoretype(' fpu sse2 avx avx2 fma')).toBe('Haswell');
    expect(openblasCoretype(' fpu sse2 sse4_2 avx')).toBeUndefined();
    expect(openblasCoretype(' avx2_foo fmax')).toBeUndefined(); // whole flags only
  });
});

describe('loadHostBlas', () => {
  it('off loads nothing', () => {
    expect(loadHostBlas({ kind: 'off' }).blas).toBeNull();
  });

  it('a path that is not a BLAS is device-unavailable naming MLA_DIFF_BLAS', () => {
    for (const path of ['/nonexistent/libopenblas.so.0', 'libc.so.6']) {
      let err: unknown;
      try {
        loadHostBlas({ kind: 'path', path }, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MlaDiffError);
      expect((err as MlaDiffError).code).toBe('device-unavailable');
      expect((err as MlaDiffError).where.field).toBe('MLA_DIFF_BLAS');
    }
  });

  it("never overrides the user's OPENBLAS_CORETYPE", () => {
    const env: NodeJS.ProcessEnv = { OPENBLAS_CORETYPE: 'Haswell' };
    loadHostBlas({ kind: 'off' }, env);
    loadHostBlas({ kind: 'auto' }, env);
    expect(env['OPENBLAS_CORETYPE']).toBe('Haswell');
  });

  const { blas, why } = loadHostBlas({ kind: 'auto' });
  if (REQUIRE)
    it('finds a BLAS (MLA_DIFF_REQUIRE_BLAS=1)', () =>
      expect({ blas: blas?.description, why }).toEqual({ blas: expect.stringMatching(/\S/), why: expect.stringMatching(/\S/) }));
  const cases: [boolean, boolean, number, number, number][] = [
    [false, false, 5, 7, 3],
    [false, true, 33, 17, 65],
    [true, false, 8, 1, 9],
    [true, true, 1, 40, 31],
  ];
  if (!blas) it('without a BLAS says what to install', () => expect(why).toMatch(/libopenblas0/));
  else
    it.each(cases)('sgemm(transA %p, transB %p) %d×%d·k %d on offset views equals the float64 product', (tA, tB, m, n, k) => {
      const lda = tA ? m : k;
      const ldb = tB ? k : n;
      const pad = 11; // operands start inside larger arrays, as tensors do in the wasm heap
      const a = Float32Array.from({ length: pad + m * k }, (_, i) => Math.sin(i * 0.37));
      const b = Float32Array.from({ length: pad + k * n }, (_, i) => Math.cos(i * 0.21));
      const c = new Float32Array(pad + m * n).fill(Number.NaN); // beta = 0: whatever C held is not read
      blas!.sgemm(tA, tB, m, n, k, a.subarray(pad), lda, b.subarray(pad), ldb, c.subarray(pad), n);
      const ref = naive(tA, tB, m, n, k, a.subarray(pad), lda, b.subarray(pad), ldb);
      expect(Array.from(c.subarray(0, pad)).every(Number.isNaN)).toBe(true); // nothing written before the view
      for (let i = 0; i < m * n; i++) expect(Math.abs(c[pad + i]! - ref[i]!)).toBeLessThan(1e-5 * (1 + Math.abs(ref[i]!)) * Math.sqrt(k));
    });

  if (blas)
    it.each(cases)('dgemm(transA %p, transB %p) %d×%d·k %d: alpha·op(A)·op(B) + beta·C on offset views', (tA, tB, m, n, k) => {
      expect(blas.dgemm).toBeDefined(); // every BLAS we load exports both
      const [lda, ldb, ldc] = [(tA ? m : k) + 2, (tB ? k : n) + 1, n + 3]; // padded leading dimensions
      const pad = 5;
      const a = Float64Array.from({ length: pad + (tA ? k : m) * lda }, (_, i) => Math.sin(i * 0.37));
      const b = Float64Array.from({ length: pad + (tB ? n : k) * ldb }, (_, i) => Math.cos(i * 0.21));
      const c0 = Float64Array.from({ length: pad + m * ldc }, (_, i) => i % 7);
      const c = c0.slice();
      blas.dgemm!(tA, tB, m, n, k, 0.5, a.subarray(pad), lda, b.subarray(pad), ldb, -2, c.subarray(pad), ldc);
      const ref = naive(tA, tB, m, n, k, a.subarray(pad), lda, b.subarray(pad), ldb);
      expect(Array.from(c.subarray(0, pad))).toEqual(Array.from(c0.subarray(0, pad)));
      for (let i = 0; i < m; i++)
        for (let j = 0; j < ldc; j++) {
          const [got, was] = [c[pad + i * ldc + j]!, c0[pad + i * ldc + j]!];
          if (j >= n)
            expect(got).toBe(was); // the padding of each row is not written
          else expect(Math.abs(got - (0.5 * ref[i * n + j]! - 2 * was))).toBeLessThan(1e-13 * (1 + Math.abs(ref[i * n + j]!)));
        }
    });
});
