/**
 * Float64 attention pieces of the reference, all from one logits array over every key, held for a
 * group of heads at a time ([G,T,S], Scores): any key range (a context chunk, the new tokens, a KV
 * split) is a column range of it. Each function writes its heads' part of whole-layer outputs
 * ([T,N,E], [N,T]) so that the groups fill them in turn. P·V goes through the float64 GEMM.
 */
import type { Gemm64 } from './reference-gemm';
import { softmaxRows } from './reference-softmax';

const { exp, log, max: fmax, min } = Math;

export interface RangeAttention {
  out: Float64Array; // [T,N,E]
  lse: Float64Array; // [N,T]
  max: Float64Array; // [N,T]
}

/** Zeros of a RangeAttention [T,N,E] / [N,T] for the groups of heads to fill. */
export const rangeAttention = (N: number, T: number, E: number): RangeAttention => ({
  out: new Float64Array(T * N * E),
  lse: new Float64Array(N * T),
  max: new Float64Array(N * T),
});

/** logits [G,T,S] of heads [h0, h0 + G) of N, every key of the request. */
export interface Scores {
  logits: Float64Array;
  h0: number;
  G: number;
  N: number;
  T: number;
  S: number;
}

/** Keys visible to query row t: columns s < offset + t (the causal mask: offset = the piece's start + 1), or every key where null. */
export type RowLimit = number | null;

/** Values [S,N,E] per head, or [S,E] shared by all heads (the MQA latent), and the [T,N,E] they are weighted into. */
export interface Weighted {
  values: Float64Array;
  E: number;
  shared: boolean;
  out: Float64Array;
}

/** Query rows per P block: P [rows, keys] is formed, then multiplied by the values of the keys its last row sees. */
const ROWS = 128;

/**
 * Softmax over columns [a, b) of the group's logits where visible, into `stats` (lse, max of its
 * heads) and, weighting each of `weighted`, its out. Rows that see no key get out 0, lse `empty`
 * (±∞ as the kernel convention says) when the range is empty, −∞ when masked, and max −∞. `keep`
 * sees each row's probabilities over the keys [a, …) it sees (attn_probs without a second exp).
 */
export function attendColumns(
  sc: Scores,
  a: number,
  b: number,
  limit: RowLimit,
  stats: Pick<RangeAttention, 'lse' | 'max'>,
  weighted: readonly Weighted[],
  gemm: Gemm64,
  empty = -Infinity,
  keep?: (h: number, t: number, p: Float64Array) => void,
): void {
  const { logits, h0, G, N, T, S } = sc;
  const P = new Float64Array(min(ROWS, T) * (b - a)); // [rows, keys] of one head
  const softmax = gemm.softmax ?? softmaxRows;
  for (let g = 0; g < G; g++) {
    const h = h0 + g;
    for (let t0 = 0; t0 < T; t0 += ROWS) {
      const n = min(T, t0 + ROWS) - t0;
      const base = limit === null ? Infinity : limit + t0 - a; // row t0 + i sees keys [a, a + base + i)
      const cols = min(b - a, fmax(0, base + n - 1)); // keys the block's last row sees: the most any row sees
      const [lse, mx] = [stats.lse.subarray(h * T + t0, h * T + t0 + n), stats.max.subarray(h * T + t0, h * T + t0 + n)];
      softmax(n, cols, logits.subarray((g * T + t0) * S + a), S, base, P, lse, mx, b > a ? -Infinity : empty);
      if (keep)
        for (let i = 0; i < n; i++) if (mx[i] !== -Infinity) keep(h, t0 + i, P.subarray(i * cols, i * cols + min(cols, fmax(0, base + i))));
      if (cols === 0) continue;
      for (const { values, E, shared, out } of weighted) {
        const [v0, ldv] = shared ? [a * E, E] : [(a * N + h) * E, N * E];
        gemm.dgemm(false, false, n, E, cols, 1, P, cols, values.subarray(v0), ldv, 0, out.subarray((t0 * N + h) * E), N * E);
      }
    }
  }
}

/** merge_attn_states in float64 for heads [h0, h0 + G) into `into`: +inf LSE of an empty part taken as −inf (weight 0). */
export function mergeStates(
  p: RangeAttention,
  s: RangeAttention,
  into: RangeAttention,
  [h0, G, N, T, E]: readonly [number, number, number, number, number],
): void {
  for (let h = h0; h < h0 + G; h++) {
    for (let t = 0; t < T; t++) {
      const i = h * T + t;
      const lp = p.lse[i] === Infinity ? -Infinity : p.lse[i]!;
      const ls = s.lse[i] === Infinity ? -Infinity : s.lse[i]!;
      const m = fmax(lp, ls);
      const [pe, se] = [exp(lp - m), exp(ls - m)];
      const z = pe + se;
      into.lse[i] = log(z) + m;
      into.max[i] = fmax(p.max[i]!, s.max[i]!);
      const o = (t * N + h) * E;
      for (let e = 0; e < E; e++) into.out[o + e] = (p.out[o + e]! * pe + s.out[o + e]! * se) / z;
    }
  }
}

/** Rows breaking max ≤ lse ≤ max + ln n for finite lse; n(t) = keys row t saw. */
export function lseViolations(r: RangeAttention, N: number, T: number, keys: (t: number) => number, slack = 1e-9): number {
  let bad = 0;
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const [l, m] = [r.lse[h * T + t]!, r.max[h * T + t]!];
      if (Number.isFinite(l) && (l < m - slack || l > m + log(keys(t)) + slack)) bad++;
    }
  }
  return bad;
}
