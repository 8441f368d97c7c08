/**
 * The reference's attention for one piece, a group of heads at a time: the group's logits [G,T,S]
 * (the whole [N,T,S] only where it is itself the `logits` record), then every attention the paths
 * compute from them (the full softmax with the latent output, the context chunks, the KV splits),
 * each writing its heads' part of the whole-layer records, tapped once every group is in.
 */
import type { HostProbe } from '../core/probes/probe';
import type { KernelOptions, PieceInput } from './backend';
import { splitLse } from './reference-absorbed';
import type { RowLimit } from './reference-attention';
import { attendColumns, lseViolations, rangeAttention } from './reference-attention';
import type { ContextDims } from './reference-context';
import { contextHeads, contextState, tapContext } from './reference-context';
import type { Gemm64 } from './reference-gemm';
import type { History } from './reference-host';
import { host } from './reference-host';
import { keepProbs, referenceLogits, sampleLogits } from './reference-logits';
import { splitRanges } from './splits';

/** Bytes of one group's logits: 8 heads at T = S = 2048, 1 head (512 MiB) at 8192. */
export const GROUP_BYTES = 2 ** 28;

/** Heads per group: as many as `bytes` of [T,S] float64 logits hold, at least one. */
export const headGroup = (N: number, T: number, S: number, bytes = GROUP_BYTES): number =>
  Math.max(1, Math.min(N, Math.floor(bytes / (8 * T * S))));

/** Everything from the logits to attn_out for one piece, recorded; returns attn_out [T,N,V]. */
export function referenceAttention(
  piece: PieceInput,
  probe: HostProbe,
  kernels: KernelOptions,
  q: Float64Array, // [T,N,D]
  hist: History,
  dims: ContextDims & { D: number; scale: number },
  gemm: Gemm64,
  groupBytes = GROUP_BYTES,
): Float64Array {
  const { N, T, S, V, L, D, scale } = dims;
  const causal: RowLimit = piece.start + 1; // row t sees keys s < start + 1 + t: key index ≤ query index
  const rows = piece.logitsRows ?? Array.from({ length: T }, (_, t) => t); // the sampled query tokens (schedule.logits_rows), else all
  const r = rows.length;
  const [wantLogits, wantProbs] = [r > 0 && probe.wants('logits'), r > 0 && probe.wants('attn_probs')];
  const whole = wantLogits && !piece.logitsRows; // the logits record is the [N,T,S] array itself
  const G = whole ? N : headGroup(N, T, S, groupBytes);
  const logits = new Float64Array(G * T * S); // [G,T,S]
  const sampled = wantLogits ? (whole ? logits : new Float64Array(N * r * S)) : null; // [N,r,S]
  const probs = wantProbs ? new Float64Array(N * r * S) : null; // [N,r,S], from the full softmax's own P
  const keep = probs ? keepProbs(rows, T, S, probs) : undefined;
  const full = rangeAttention(N, T, V); // out [T,N,V], lse, max [N,T]
  const latent = new Float64Array(T * N * L); // attn_out_latent [T,N,L]
  const ctx = piece.chunks.length ? contextState(piece, dims) : null;
  const nSplits = kernels.kvSplits > 1 ? splitRanges(S, kernels.kvSplits).length : 0;
  const splits = new Float64Array(T * N * nSplits); // split_lse [T,N,splits]
  for (let h0 = 0; h0 < N; h0 += G) {
    // Unrecorded, only the keys each row sees are multiplied (the masked ones are never read).
    const sc = referenceLogits(q, hist.k, scale, [h0, Math.min(G, N - h0), N, T, S, D], gemm, logits, wantLogits ? null : causal);
    const weighted = [
      { values: hist.v, E: V, shared: false, out: full.out },
      { values: hist.latentOnly, E: L, shared: true, out: latent },
    ];
    attendColumns(sc, 0, S, causal, full, weighted, gemm, -Infinity, keep);
    if (sampled && !whole) sampleLogits(sc, rows, sampled);
    if (ctx) contextHeads(sc, piece, kernels, hist, V, ctx, gemm);
    if (nSplits) splitLse(sc, splits, kernels.kvSplits, causal, gemm);
  }
  if (sampled) probe.tap('logits', host([N, r, S], sampled));
  if (probs) probe.tap('attn_probs', host([N, r, S], probs));
  if (ctx) tapContext(piece, probe, hist, ctx, dims);
  if (nSplits) probe.tap('split_lse', host([T, N, nSplits], splits));
  probe.tap('lse', host([N, T], full.lse));
  probe.check(
    'lse',
    'lse_bounds',
    lseViolations(full, N, T, (t) => piece.start + t + 1),
  );
  probe.tap('attn_out_latent', host([T, N, L], latent));
  probe.tap('attn_out_heads', host([T, N, V], full.out));
  probe.tap('attn_out', host([T, N * V], full.out));
  return full.out;
}
