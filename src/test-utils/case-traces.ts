/** Synthetic case traces for tests of compare: the pieces and per-path records a list of diffs implies, and the case around them. */
import type { PathTrace, StageRecord } from '../core/probes/recorder';
import { recordKey } from '../core/probes/recorder';
import type { PathName } from '../trace/stages';
import type { PairDiff } from '../harness/run/diff';
import type { CaseTrace, PieceInfo } from '../harness/run/trace';
import { at, piece, PIECE0, stageRecord, stats } from './traces';

/** The pieces the diffs touch, in step then request order, each a 3-token prefill. */
function piecesOf(diffs: PairDiff[]): PieceInfo[] {
  const seen = new Map<string, PieceInfo>();
  for (const d of diffs) {
    const k = `${d.step}/${d.request}`;
    if (!seen.has(k)) seen.set(k, d.step === PIECE0.step && d.request === PIECE0.request ? PIECE0 : piece(d.step, d.request));
  }
  return [...seen.values()].sort((x, y) => x.step - y.step || (x.request < y.request ? -1 : x.request > y.request ? 1 : 0));
}

/**
 * Per-path traces consistent with the diffs: every path of a diff records its stage there (norm 10,
 * NaN count as the diff gives it) and has an (empty-scalar) entry for each piece.
 */
export function pathsOfDiffs(diffs: PairDiff[], pieces: readonly PieceInfo[]): Partial<Record<PathName, PathTrace>> {
  const recs = new Map<PathName, Map<string, StageRecord>>();
  for (const d of diffs) {
    for (const [p, nan] of [
      [d.a, d.nan[0]],
      [d.b, d.nan[1]],
    ] as const) {
      const byKey = recs.get(p) ?? new Map<string, StageRecord>();
      recs.set(p, byKey);
      const k = recordKey(d);
      const old = byKey.get(k);
      const w = at(d.stage, d);
      const precision = p === 'reference' ? 'float64' : 'float32';
      byKey.set(k, stageRecord(w, 10, { stats: stats(10, { dtype: precision, nanCount: Math.max(nan, old?.stats.nanCount ?? 0) }) }));
    }
  }
  return Object.fromEntries(
    [...recs.entries()].map(([p, byKey]) => [
      p,
      {
        path: p,
        precision: p === 'reference' ? 'float64' : 'float32',
        stages: [...byKey.values()],
        pieces: pieces.filter((x) => x.kind !== 'cached').map((x) => ({ step: x.step, request: x.request, scalars: {} })),
      } satisfies PathTrace,
    ]),
  );
}

/**
 * A case trace. Unless given, `pieces` are those the diffs touch and `paths` record every stage
 * the diffs compare (compare judges the records the paths made, so both are needed).
 */
export function caseTrace(diffs: PairDiff[], extra: Partial<CaseTrace> = {}): CaseTrace {
  const pieces = extra.pieces ?? (diffs.length ? piecesOf(diffs) : [PIECE0]);
  return {
    name: 'all-heads',
    label: 'all 4 heads',
    heads: { start: 0, count: 4 },
    totalHeads: 4,
    pieces,
    paths: extra.paths ?? pathsOfDiffs(diffs, pieces),
    diffs,
    expectedSoftmaxScale: 0.2041,
    seconds: {},
    notes: [],
    ...extra,
  };
}
