/** The float64 reference's logits over every key of the request for a group of heads, their sampled rows and attn_probs. */
import type { RowLimit, Scores } from './reference-attention';
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
    if (visible === null)
      gemm.dgemm(false, true, T, S, D, scale, q.subarray(h * D), N * D, k.subarray(h * D), N * D, 0, logits.subarray(g * T * S), S);
    else
      for (let t0 = 0; t0 < T; t0 += ROWS) {
        const t1 = Math.min(T, t0 + ROWS);
        const cols = Math.min(S, Math.max(0, visible + t1 - 1)); // the keys the block's last row sees
        const [qt, out] = [q.subarray((t0 * N + h) * D), logits.subarray((g * T + t0) * S)];
        gemm.dgemm(false, true, t1 - t0, cols, D, scale, qt, N * D, k.subarray(h * D), N * D, 0, out, S);
      }
  }
  return { logits, h0, G, N, T, S };
}

/** The sampled rows `rows` (schedule.logits_rows) of the group's logits into sampled [N,r,S]. */
export function sampleLogits(sc: Scores, rows: readonly number[], sampled: Float64Array): void {
  const { logits, h0, G, T, S } = sc;
  for (let g = 0; g < G; g++)
    rows.forEach((t, i) => sampled.set(logits.subarray((g * T + t) * S, (g * T + t + 1) * S), ((h0 + g) * rows.length + i) * S));
}

/**
 * Where each query row's attn_probs go in probs [N,r,S] (0 past its causal limit): a `keep` for
 * attendColumns over every key, the rows not sampled passed by.
 */
export function keepProbs(
  rows: readonly number[],
  T: number,
  S: number,
  probs: Float64Array,
): (h: number, t: number, p: Float64Array) => void {
  const at = new Int32Array(T).fill(-1); // query row → its index among the sampled rows
  rows.forEach((t, i) => (at[t] = i));
  return (h, t, p) => {
    if (at[t]! >= 0) probs.set(p, (h * rows.length + at[t]!) * S);
  };
}
