import { loadHostBlas } from '../devices/kernels/host-blas';
import type { Dgemm } from './reference-gemm';
import { blasGemm, jsDgemm, ntKernel } from './reference-gemm';
import { softmaxRows } from './reference-softmax';
import { createGemmPool, POOL_MIN_MACS, POOL_MIN_SOFTMAX } from './reference-gemm-pool';

const REQUIRE = process.env['MLA_DIFF_REQUIRE_BLAS'] === '1';

/** Row-major alpha·op(A)·op(B) + beta·C, the textbook way, into a copy of C. */
function naive(...[tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc]: Parameters<Dgemm>): Float64Array {
  const y = c.slice();
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (tA ? a[p * lda + i]! : a[i * lda + p]!) * (tB ? b[j * ldb + p]! : b[p * ldb + j]!);
      y[i * ldc + j] = alpha * s + (beta === 0 ? 0 : beta * c[i * ldc + j]!);
    }
  return y;
}

/** The reference's gemmNT before issue 21 (x [T,K] float64, w [O,K] float32), kept to show ntKernel computes the same sums. */
function gemmNTBefore(x: Float64Array, T: number, K: number, w: Float32Array, O: number, out: Float64Array, ldo: number): void {
  for (let tb = 0; tb < T; tb += 16) {
    const te = Math.min(T, tb + 16);
    for (let o = 0; o < O; o++) {
      let t = tb;
      for (; t + 3 < te; t += 4) {
        const acc = [0, 0, 0, 0];
        for (let k = 0; k < K; k++) for (let r = 0; r < 4; r++) acc[r] = acc[r]! + x[(t + r) * K + k]! * w[o * K + k]!;
        for (let r = 0; r < 4; r++) out[(t + r) * ldo + o] = acc[r]!;
      }
      for (; t < te; t++) {
        let [a, b, k] = [0, 0, 0];
        for (; k + 1 < K; k += 2) [a, b] = [a + x[t * K + k]! * w[o * K + k]!, b + x[t * K + k + 1]! * w[o * K + k + 1]!];
        if (k < K) a += x[t * K + k]! * w[o * K + k]!;
        out[t * ldo + o] = a + b;
      }
    }
  }
}

const fill = (n: number, f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));

/** [transA, transB, m, n, k, alpha, beta]: odd shapes, empty ones, and one past the pool's threshold. */
const SHAPES: [boolean, boolean, number, number, number, number, number][] = [
  [false, true, 5, 7, 3, 1, 0],
  [false, false, 33, 17, 65, 0.125, 0],
  [true, false, 8, 1, 9, 1, -2],
  [true, true, 1, 40, 31, 2, 0.5],
  [false, true, 1, 1, 1, 1, 1],
  [false, true, 0, 4, 3, 1, 0],
  [false, false, 4, 0, 3, 1, 0],
  [false, true, 3, 4, 0, 1, 0.5],
  [false, true, 130, 97, 101, 0.7, 0], // past POOL_MIN_MACS: the pool splits rows
  [false, false, 3, 700, 600, 1, 1], // few rows: the pool splits columns
];

/** Operands with padded leading dimensions, starting inside larger arrays; C prefilled (NaN where beta = 0). */
function operands([tA, tB, m, n, k, alpha, beta]: (typeof SHAPES)[number]): Parameters<Dgemm> {
  const [lda, ldb, ldc, pad] = [(tA ? m : k) + 2, (tB ? k : n) + 1, n + 3, 5];
  const a = fill(pad + (tA ? k : m) * lda, (i) => Math.sin(i * 0.37)).subarray(pad);
  const b = fill(pad + (tB ? n : k) * ldb, (i) => Math.cos(i * 0.21)).subarray(pad);
  const c = fill(pad + m * ldc, (i) => (beta === 0 ? NaN : (i % 7) - 3)).subarray(pad);
  return [tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc];
}

/** Max relative difference over C's [m,n] block; the padding of each row must be untouched. */
function check(got: Float64Array, args: Parameters<Dgemm>): number {
  const [, , m, n, , , , , , , beta, c0, ldc] = args;
  const want = naive(...args);
  let worst = 0;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < ldc; j++) {
      const [g, w] = [got[i * ldc + j]!, want[i * ldc + j]!];
      if (j >= n) expect(Object.is(g, c0[i * ldc + j]) || (beta === 0 && Number.isNaN(g))).toBe(true);
      else worst = Math.max(worst, Math.abs(g - w) / Math.max(1, Math.abs(w)));
    }
  return worst;
}

function run(dgemm: Dgemm, args: Parameters<Dgemm>): Float64Array {
  const c = args[11].slice();
  dgemm(
    ...(args.slice(0, 11) as [boolean, boolean, number, number, number, number, Float64Array, number, Float64Array, number, number]),
    c,
    args[12],
  );
  return c;
}

describe('the reference float64 GEMM', () => {
  it('ntKernel computes the sums the reference computed before, bit for bit (x·Wᵀ, alpha 1, beta 0)', () => {
    for (const [T, K, O] of [
      [1, 1, 1],
      [5, 3, 7],
      [19, 64, 33],
      [37, 129, 5],
    ] as const) {
      const x = fill(T * K, (i) => Math.sin(i * 1.3));
      const w = Float32Array.from(fill(O * K, (i) => Math.cos(i * 0.7)));
      const [before, after] = [new Float64Array(T * O), new Float64Array(T * O)];
      gemmNTBefore(x, T, K, w, O, before, O);
      ntKernel(T, O, K, 1, x, K, Float64Array.from(w), K, 0, after, O);
      expect(Array.from(after)).toEqual(Array.from(before));
    }
  });

  it.each(SHAPES)('plain loops: transA %p transB %p %d×%d·k %d alpha %p beta %p', (...shape) => {
    const args = operands(shape);
    expect(check(run(jsDgemm, args), args)).toBeLessThanOrEqual(1e-12);
  });

  const { blas } = loadHostBlas({ kind: 'auto' });
  const gemm = blas && blasGemm(blas);
  if (REQUIRE) it('the host BLAS has cblas_dgemm (MLA_DIFF_REQUIRE_BLAS=1)', () => expect(gemm?.kind).toBe('blas'));
  if (gemm)
    it.each(SHAPES)('host dgemm: transA %p transB %p %d×%d·k %d alpha %p beta %p', (...shape) => {
      const args = operands(shape);
      expect(check(run(gemm.dgemm, args), args)).toBeLessThanOrEqual(1e-12);
    });

  it('the worker pool equals the plain loops on every shape, bit for bit, and starts and stops', async () => {
    const pool = createGemmPool(3);
    expect(pool).not.toBeNull();
    try {
      expect(pool!.threads).toBe(3);
      expect(SHAPES.some(([, , m, n, k]) => m * n * k >= POOL_MIN_MACS)).toBe(true);
      for (const shape of [...SHAPES, ...SHAPES.slice(-2)]) {
        // twice through the big ones: the arena is reused, then grown
        const args = operands(shape);
        expect(Array.from(run(pool!.dgemm, args))).toEqual(Array.from(run(jsDgemm, args)));
      }
    } finally {
      await pool!.close();
    }
  });

  it('softmaxRows: masked keys, rows that see none, and the pool softmax equal to it bit for bit', async () => {
    const [n, w, ldx] = [150, 120, 131]; // past POOL_MIN_SOFTMAX
    expect(n * w).toBeGreaterThanOrEqual(POOL_MIN_SOFTMAX);
    const x = fill(n * ldx, (i) => Math.sin(i * 0.13) * 20);
    const out = () => ({ P: new Float64Array(n * w).fill(NaN), lse: new Float64Array(n), max: new Float64Array(n) });
    const pool = createGemmPool(3)!;
    try {
      for (const base of [Infinity, 1, -40]) {
        const [a, b] = [out(), out()];
        softmaxRows(n, w, x, ldx, base, a.P, a.lse, a.max, 7);
        pool.softmax(n, w, x, ldx, base, b.P, b.lse, b.max, 7);
        expect([Array.from(b.P), Array.from(b.lse), Array.from(b.max)]).toEqual([Array.from(a.P), Array.from(a.lse), Array.from(a.max)]);
        for (let i = 0; i < n; i++) {
          const e = Math.min(w, Math.max(0, base + i)); // keys row i sees
          const row = Array.from(x.subarray(i * ldx, i * ldx + e));
          if (!e) {
            expect([a.lse[i], a.max[i], Math.max(...a.P.subarray(i * w, i * w + w))]).toEqual([7, -Infinity, 0]);
            continue;
          }
          const m = Math.max(...row);
          const lse = Math.log(row.reduce((z, v) => z + Math.exp(v - m), 0)) + m;
          expect([a.max[i], Math.abs(a.lse[i]! - lse) < 1e-12]).toEqual([m, true]);
          row.forEach((v, s) => expect(Math.abs(a.P[i * w + s]! - Math.exp(v - lse))).toBeLessThan(1e-14));
          expect(Array.from(a.P.subarray(i * w + e, i * w + w)).every((p) => p === 0)).toBe(true);
        }
      }
    } finally {
      await pool.close();
    }
  });
});
