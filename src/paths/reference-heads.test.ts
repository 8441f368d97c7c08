import { HostRecorder } from '../core/probes/host-recorder';
import type { StageName } from '../trace/stages';
import { loadHostBlas } from '../devices/kernels/host-blas';
import type { PieceInput } from './backend';
import type { RowLimit } from './reference-attention';
import { attendColumns, rangeAttention } from './reference-attention';
import type { Gemm64 } from './reference-gemm';
import { JS_GEMM, blasGemm } from './reference-gemm';
import { createGemmPool } from './reference-gemm-pool';
import { referenceAttention } from './reference-heads';
import { referenceLogits } from './reference-logits';

/** The reference's attendColumns before issue 21 (one loop per row, P·V in place), kept to show the GEMM form computes the same. */
function attendBefore(
  ...[logits, N, T, S, a, b, visible, values, E, shared, empty]: [
    Float64Array,
    number,
    number,
    number,
    number,
    number,
    ((t: number, s: number) => boolean) | null,
    Float64Array,
    number,
    boolean,
    number,
  ]
) {
  const [out, lse, max, w] = [new Float64Array(T * N * E), new Float64Array(N * T), new Float64Array(N * T), new Float64Array(b - a)];
  for (let h = 0; h < N; h++)
    for (let t = 0; t < T; t++) {
      const row = (h * T + t) * S;
      let m = -Infinity;
      for (let s = a; s < b; s++) if (!visible || visible(t, s)) m = Math.max(m, logits[row + s]!);
      max[h * T + t] = m;
      if (m === -Infinity) {
        lse[h * T + t] = b > a ? -Infinity : empty;
        continue;
      }
      let z = 0;
      for (let s = a; s < b; s++) z += w[s - a] = !visible || visible(t, s) ? Math.exp(logits[row + s]! - m) : 0;
      lse[h * T + t] = Math.log(z) + m;
      for (let s = a; s < b; s++) {
        const p = w[s - a]! / z;
        const vo = shared ? s * E : (s * N + h) * E;
        for (let e = 0; e < E; e++) out[(t * N + h) * E + e] = out[(t * N + h) * E + e]! + p * values[vo + e]!;
      }
    }
  return { out, lse, max };
}

const fill = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.731 + seed) * 3);

/** Largest |x - y| / max(1, |y|), NaN and ±∞ equal only to themselves. */
function relDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  expect(x.length).toBe(y.length);
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    if (Object.is(x[i], y[i])) continue;
    if (!Number.isFinite(x[i]!) || !Number.isFinite(y[i]!)) return Infinity;
    worst = Math.max(worst, Math.abs(x[i]! - y[i]!) / Math.max(1, Math.abs(y[i]!)));
  }
  return worst;
}

const { blas } = loadHostBlas({ kind: 'auto' });
const host = blas && blasGemm(blas);
const GEMMS: [string, () => Gemm64 & { close?: () => Promise<void> }][] = [
  ['plain loops', () => JS_GEMM],
  ['a pool of 2 workers', () => createGemmPool(2)!],
  ...(host ? [['host dgemm', () => host] as [string, () => Gemm64]] : []),
];

describe.each(GEMMS)('the reference attention through %s', (_, open) => {
  let gemm: Gemm64 & { close?: () => Promise<void> };
  beforeAll(() => (gemm = open()));
  afterAll(async () => gemm.close?.());

  // [N, T, S, start, E]: one row, a key block past 128 rows, empty and masked ranges
  it.each([
    [1, 1, 1, 0, 1],
    [3, 5, 9, 4, 4],
    [2, 140, 150, 10, 3],
    [4, 7, 7, 0, 0],
  ])('N %d T %d S %d start %d E %d: logits and every column range equal the loops before, groups of heads or not', (N, T, S, start, E) => {
    const D = 6;
    const [q, k] = [fill(T * N * D, 1), fill(S * N * D, 2)]; // [T,N,D], [S,N,D]
    const want = new Float64Array(N * T * S); // [N,T,S], the loop before
    for (let h = 0; h < N; h++)
      for (let t = 0; t < T; t++)
        for (let s = 0; s < S; s++) {
          let acc = 0;
          for (let e = 0; e < D; e++) acc += q[(t * N + h) * D + e]! * k[(s * N + h) * D + e]!;
          want[(h * T + t) * S + s] = acc * 0.3;
        }
    const sc = referenceLogits(q, k, 0.3, [0, N, N, T, S, D], gemm);
    expect(relDiff(sc.logits, want)).toBeLessThanOrEqual(1e-12);
    const causal: RowLimit = start + 1;
    const vis = referenceLogits(q, k, 0.3, [0, N, N, T, S, D], gemm, new Float64Array(N * T * S).fill(NaN), causal);
    const seen = Array.from(want, (w, i) => (i % S < start + (((i / S) | 0) % T) + 1 ? w : NaN)); // the keys each row sees
    expect(
      relDiff(
        Array.from(vis.logits, (x, i) => (Number.isNaN(seen[i]!) ? NaN : x)),
        seen,
      ),
    ).toBeLessThanOrEqual(1e-12);
    const values = { own: fill(S * N * E, 3), shared: fill(S * E, 4) };
    for (const [a, b, limit, empty] of [
      [0, S, causal, -Infinity],
      [start, S, causal, -Infinity],
      [0, Math.max(0, start - 1), null, Infinity],
      [start, start, null, Infinity], // an empty range
      [0, S, -T, -Infinity], // every key masked
    ] as const) {
      const visible = limit === null ? null : (t: number, s: number) => s < limit + t;
      for (const shared of [false, true]) {
        const v = shared ? values.shared : values.own;
        const before = attendBefore(want, N, T, S, a, b, visible, v, E, shared, empty);
        for (const G of [N, 1]) {
          const got = rangeAttention(N, T, E);
          for (let h0 = 0; h0 < N; h0 += G) {
            const part = { logits: want.subarray(h0 * T * S, (h0 + G) * T * S), h0, G: Math.min(G, N - h0), N, T, S };
            attendColumns(part, a, b, limit, got, [{ values: v, E, shared, out: got.out }], gemm, empty);
          }
          expect([relDiff(got.out, before.out), relDiff(got.lse, before.lse), relDiff(got.max, before.max)]).toEqual([
            expect.any(Number),
            0,
            0,
          ]);
          expect(relDiff(got.out, before.out)).toBeLessThanOrEqual(1e-12);
        }
      }
    }
  });

  it('a piece with context chunks and KV splits records the same in groups of one head, and without logits', () => {
    const [N, T, start, D, V, L, R] = [3, 6, 7, 5, 4, 3, 2];
    const S = start + T;
    const piece = {
      start,
      chunks: [
        [0, 3],
        [3, 7],
      ],
      logitsRows: [1, 4],
    } as unknown as PieceInput;
    const hist = { k: fill(S * N * D, 5), v: fill(S * N * V, 6), latentOnly: fill(S * L, 7), latent: fill(S * (L + R), 8) };
    const kernels = { kvSplits: 3, emptyLse: '-inf' as const };
    const run = (groupBytes: number, skip: StageName[]) => {
      const rec = new HostRecorder({ filter: (s) => !skip.includes(s), retain: new Set<StageName>(['logits']) });
      rec.at({ step: 0, request: 'r' });
      const dims = { N, T, S, V, L, R, D, scale: 0.4 };
      referenceAttention(piece, rec, kernels, fill(T * N * D, 9), hist, dims, gemm, groupBytes);
      const taps = new Map<string, Float64Array | Float32Array>();
      rec.forEachTap((t) => taps.set(`${t.stage}/${t.chunk ?? ''}/${t.checks.map((c) => c.violations).join()}`, t.x.data));
      return taps;
    };
    const whole = run(2 ** 28, []);
    expect([...whole.keys()].filter((k) => /^(logits|attn_probs|split_lse|chunk_lse|context_output)\//.test(k))).toHaveLength(7);
    for (const other of [run(8 * T * S, []), run(2 ** 28, ['logits']), run(8 * T * S, ['logits', 'attn_probs'])]) {
      for (const [key, x] of other) expect({ key, d: relDiff(x, whole.get(key)!) }).toEqual({ key, d: 0 });
      expect(other.size).toBeGreaterThanOrEqual(whole.size - 2);
    }
  });
});
