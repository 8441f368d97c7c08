/** forward_mha's context path in float64: the new tokens' part, the context chunks and their running merges. */
import type { HostProbe } from '../core/probes/probe';
import type { KernelOptions, PieceInput } from './backend';
import type { RangeAttention, Scores } from './reference-attention';
import { attendColumns, lseViolations, mergeStates, rangeAttention } from './reference-attention';
import type { Gemm64 } from './reference-gemm';
import type { History } from './reference-host';
import { host } from './reference-host';

/** The dimensions of one piece the context path reads. */
export interface ContextDims {
  N: number;
  T: number;
  S: number;
  V: number;
  L: number;
  R: number;
}

/** The context path's outputs, filled group of heads by group: the new tokens' part, each chunk's and the running merge after it. */
export interface ContextState {
  own: RangeAttention;
  parts: RangeAttention[];
  running: RangeAttention[];
}

export function contextState(piece: PieceInput, { N, T, V }: ContextDims): ContextState {
  const parts = piece.chunks.map(() => rangeAttention(N, T, V));
  return { own: rangeAttention(N, T, V), parts, running: parts.map((p, i) => (i === 0 ? p : rangeAttention(N, T, V))) };
}

/** The new tokens, the chunks and the running merges for the group's heads (same ranges as the engine). */
export function contextHeads(
  sc: Scores,
  piece: PieceInput,
  kernels: KernelOptions,
  hist: History,
  V: number,
  st: ContextState,
  gemm: Gemm64,
): void {
  const { h0, G, N, T, S } = sc;
  const v = (out: Float64Array) => [{ values: hist.v, E: V, shared: false, out }];
  attendColumns(sc, piece.start, S, piece.start + 1, st.own, v(st.own.out), gemm);
  piece.chunks.forEach(([a, b], i) => {
    const part = st.parts[i]!;
    attendColumns(sc, a, b, null, part, v(part.out), gemm, kernels.emptyLse === '+inf' ? Infinity : -Infinity);
    if (i > 0) mergeStates(st.running[i - 1]!, part, st.running[i]!, [h0, G, N, T, V]);
  });
}

/** The context path's records, once every group of heads is in. */
export function tapContext(piece: PieceInput, probe: HostProbe, hist: History, st: ContextState, { N, T, V, L, R }: ContextDims): void {
  probe.tap('suffix_output', host([T, N, V], st.own.out));
  probe.tap('suffix_lse', host([N, T], st.own.lse));
  probe.check(
    'suffix_lse',
    'lse_bounds',
    lseViolations(st.own, N, T, (t) => t + 1),
  );
  piece.chunks.forEach(([a, b], i) => {
    const [part, running] = [st.parts[i]!, st.running[i]!];
    probe.tap('ctx_workspace', host([b - a, L + R], hist.latent.slice(a * (L + R), b * (L + R))), undefined, i);
    probe.tap('chunk_output', host([T, N, V], part.out), undefined, i);
    probe.tap('chunk_lse', host([N, T], part.lse), undefined, i);
    if (b > a)
      probe.check(
        'chunk_lse',
        'lse_bounds',
        lseViolations(part, N, T, () => b - a),
        i,
      );
    probe.tap('context_output', host([T, N, V], running.out), undefined, i);
    probe.tap('context_lse', host([N, T], running.lse), undefined, i);
  });
}
