/** The float64 reference's logits [N,T,S] over every key of the request, their sampled rows and the attention probabilities. */
import type { HostProbe } from '../core/probes/probe';
import type { PieceInput } from './backend';
import type { RangeAttention } from './reference-attention';
import { host } from './reference-host';

/** logits[h,t,s] = scale·q[t,h,:]·k[s,h,:] for q [T,N,D], k [S,N,D]. */
export function referenceLogits(
  q: Float64Array,
  k: Float64Array,
  scale: number,
  [N, T, S, D]: readonly [number, number, number, number],
): Float64Array {
  const logits = new Float64Array(N * T * S); // [N,T,S] over every key of the request
  for (let h = 0; h < N; h++)
    for (let t = 0; t < T; t++)
      for (let s = 0; s < S; s++) {
        let acc = 0;
        for (let e = 0; e < D; e++) acc += q[(t * N + h) * D + e]! * k[(s * N + h) * D + e]!;
        logits[(h * T + t) * S + s] = acc * scale;
      }
  return logits;
}

/** The sampled query tokens (schedule.logits_rows, else all) and their logits [N,r,S], recorded. */
export function sampledLogits(
  piece: PieceInput,
  probe: HostProbe,
  logits: Float64Array,
  [N, T, S]: readonly [number, number, number],
): { rows: readonly number[]; sampled: Float64Array } {
  const rows = piece.logitsRows ?? Array.from({ length: T }, (_, t) => t); // the sampled query tokens (schedule.logits_rows), else all
  const r = rows.length;
  const sampled = piece.logitsRows ? new Float64Array(N * r * S) : logits; // [N,r,S]
  if (piece.logitsRows)
    for (let h = 0; h < N; h++) rows.forEach((t, i) => sampled.set(logits.subarray((h * T + t) * S, (h * T + t + 1) * S), (h * r + i) * S));
  if (r) probe.tap('logits', host([N, r, S], sampled));
  return { rows, sampled };
}

/** attn_probs [N,r,S] of the sampled rows, from the full attention's LSE (0 past each row's causal limit). */
export function tapProbs(
  piece: PieceInput,
  probe: HostProbe,
  rows: readonly number[],
  sampled: Float64Array,
  full: RangeAttention,
  [N, T, S]: readonly [number, number, number],
): void {
  const r = rows.length;
  if (!(r && probe.wants('attn_probs'))) return;
  const probs = new Float64Array(N * r * S);
  for (let h = 0; h < N; h++)
    rows.forEach((t, i) => {
      for (let s = 0; s <= piece.start + t; s++)
        probs[(h * r + i) * S + s] = Math.exp(sampled[(h * r + i) * S + s]! - full.lse[h * T + t]!);
    });
  probe.tap('attn_probs', host([N, r, S], probs));
}
