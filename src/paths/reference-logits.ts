/** The float64 reference's logits over every key of the request for a group of heads, their sampled rows and attn_probs. */
import type { RangeAttention, RowLimit, Scores } from './reference-attention';
import type { Gemm64 } from './reference-gemm';

/** Query rows per product when only the visible keys are multiplied. */
const ROWS = 256;

/**
 * logits[h - h0, t, s] = scale·q[t,h,:]·k[s,h,:] for heads [h0, h0 + G), q [T,N,D], k [S,N,D]: one
 * strided GEMM per head (lda = ldb = N·D at offset h·D). With `visible`, each block of rows only
 * over the keys its last row sees (entries past them are left as they were: nothing reads them).
 */
export function referenceLogits(
  q: Float64Array,
  k: Float64Array,
  scale: number,
  [h0, G, N, T, S, D]: readonly [number, number, number, number, number, number],
  gemm: Gemm64,
  logits = new Float64Array(G * T * S), // [G,T,S]
  visible: RowLimit = null,
): Scores {
  for (let g = 0; g < G; g++) {
    const h = h0 + g;
    if (!visible)
      gemm.dgemm(false, true, T, S, D, scale, q.subarray(h * D), N * D, k.subarray(h * D), N * D, 0, logits.subarray(g * T * S), S);
    else
      for (let t0 = 0; t0 < T; t0 += ROWS) {
        const t1 = Math.min(T, t0 + ROWS);
        const cols = Math.min(S, Math.max(0, visible(t1 - 1)));
        const [qt, out] = [q.subarray((t0 * N + h) * D), logits.subarray((g * T + t0) * S)];
        gemm.dgemm(false, true, t1 - t0, cols, D, scale, qt, N * D, k.subarray(h * D), N * D, 0, out, S);
      }
  }
  return { logits, h0, G, N, T, S };
}

/**
 * The sampled rows `rows` (schedule.logits_rows) of the group's logits into sampled [N,r,S], and
 * their attn_probs from the full attention's LSE (0 past each row's causal limit) into probs.
 */
export function sampleRows(
  sc: Scores,
  rows: readonly number[],
  full: RangeAttention,
  start: number,
  sampled: Float64Array | null,
  probs: Float64Array | null,
): void {
  const { logits, h0, G, T, S } = sc;
  const r = rows.length;
  for (let g = 0; g < G; g++) {
    const h = h0 + g;
    rows.forEach((t, i) => {
      const [from, to] = [(g * T + t) * S, (h * r + i) * S];
      sampled?.set(logits.subarray(from, from + S), to);
      if (probs) for (let s = 0; s <= start + t; s++) probs[to + s] = Math.exp(logits[from + s]! - full.lse[h * T + t]!);
    });
  }
}
