/** forward_mha's context path in float64: the new tokens' part, the context chunks and their running merges. */
import type { HostProbe } from '../core/probes/probe';
import type { KernelOptions, PieceInput } from './backend';
import { attendColumns, lseViolations, mergeStates } from './reference-attention';
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

/** The new tokens, the chunks and the running merges over logits [N,T,S] (same ranges as the engine). */
export function referenceContext(
  piece: PieceInput,
  probe: HostProbe,
  kernels: KernelOptions,
  logits: Float64Array,
  hist: History,
  { N, T, S, V, L, R }: ContextDims,
): void {
  const own = attendColumns(logits, N, T, S, piece.start, S, (t, s) => s <= piece.start + t, hist.v, V, false);
  probe.tap('suffix_output', host([T, N, V], own.out));
  probe.tap('suffix_lse', host([N, T], own.lse));
  probe.check(
    'suffix_lse',
    'lse_bounds',
    lseViolations(own, N, T, (t) => t + 1),
  );
  let running = null as ReturnType<typeof attendColumns> | null;
  piece.chunks.forEach(([a, b], i) => {
    probe.tap('ctx_workspace', host([b - a, L + R], hist.latent.slice(a * (L + R), b * (L + R))), undefined, i);
    const part = attendColumns(logits, N, T, S, a, b, null, hist.v, V, false, kernels.emptyLse === '+inf' ? Infinity : -Infinity);
    probe.tap('chunk_output', host([T, N, V], part.out), undefined, i);
    probe.tap('chunk_lse', host([N, T], part.lse), undefined, i);
    if (b > a)
      probe.check(
        'chunk_lse',
        'lse_bounds',
        lseViolations(part, N, T, () => b - a),
        i,
      );
    running = running ? mergeStates(running, part, N, T, V) : part;
    probe.tap('context_output', host([T, N, V], running.out), undefined, i);
    probe.tap('context_lse', host([N, T], running.lse), undefined, i);
  });
}
