import type { PathTrace, StageRecord } from '../core/probes/recorder';
import { recordKey } from '../core/probes/recorder';
import type { PathName, ScalarName, ScalarValue, StageDef, StageName } from '../trace/stages';
import { STAGE_NAMES, STAGES } from '../trace/stages';
import type { TensorStats } from '../core/probes/stats';
import type { PairDiff, Where } from '../harness/run/diff';
import type { CaseTrace, PieceInfo } from '../harness/run/trace';

/** Synthetic traces for tests of compare and reports: no tfjs, just the data shapes. */

/** The one piece of a one-shot prefill, as a `prompt:` scenario schedules it. */
export const PIECE0: PieceInfo = { step: 0, request: 'prompt', kind: 'prefill', route: 'mha', start: 0, count: 3, chunks: 0 };

/** A piece of a schedule; route mqa for one token, chunks only with context. */
export function piece(step: number, request: string, extra: Partial<PieceInfo> = {}): PieceInfo {
  const count = extra.count ?? 3;
  return { step, request, kind: 'prefill', route: count <= 1 ? 'mqa' : 'mha', start: 0, count, chunks: 0, ...extra };
}

/** Where a record sits; chunk only when given (as the recorder writes it). */
export function at(stage: StageName, where: Partial<Where> = {}): Where {
  const { step = PIECE0.step, request = PIECE0.request, chunk } = where;
  return { step, request, stage, ...(chunk === undefined ? {} : { chunk }) };
}

export const isChunked = (s: StageName): boolean => Boolean((STAGES[s] as StageDef).chunked);

/** Stages a one-shot prefill records (no context: nothing of the context group). */
export const ONE_SHOT_STAGES: readonly StageName[] = STAGE_NAMES.filter((s) => STAGES[s].group !== 'context');

/**
 * The records of one piece in pipeline order: every stage, and with context the suffix stages and
 * the chunked stages once per chunk (chunk by chunk, as stageOrder sorts them).
 */
export function pieceRecords(p: PieceInfo, stages: readonly StageName[] = STAGE_NAMES): Where[] {
  if (p.kind === 'cached') return [];
  const out: Where[] = [];
  const chunked = stages.filter(isChunked);
  for (const s of stages) {
    if (STAGES[s].group === 'context' && !p.chunks) continue;
    if (isChunked(s)) {
      if (s !== chunked[0]) continue;
      for (let c = 0; c < p.chunks; c++) for (const cs of chunked) out.push(at(cs, { step: p.step, request: p.request, chunk: c }));
    } else {
      out.push(at(s, p));
    }
  }
  return out;
}

/** A diff of one record between two paths; `relErr` as given, everything else plausible. */
export function pairDiff(stage: StageName, a: PathName, b: PathName, relErr: number | null, extra: Partial<PairDiff> = {}): PairDiff {
  const { step, request, chunk, ...rest } = extra;
  return {
    ...at(stage, { step, request, chunk }),
    a,
    b,
    shapeMatch: true,
    relErr,
    maxAbsErr: relErr === null ? null : relErr * 2,
    maxAbsErrAt: relErr === null ? null : [0, 1],
    cosine: relErr === null ? null : 1 - relErr,
    normRatio: 1,
    nan: [0, 0],
    infMismatch: 0,
    ...rest,
  };
}

export function stats(l2: number, extra: Partial<TensorStats> = {}): TensorStats {
  return {
    shape: [2, 3],
    dtype: 'float32',
    layout: 't d',
    size: 6,
    l2,
    rms: l2 / Math.sqrt(6),
    mean: 0,
    maxAbs: l2,
    maxAbsAt: [0, 0],
    nanCount: 0,
    infCount: 0,
    ...extra,
  };
}

/** One record of one path: norm `l2` at `where`. */
export function stageRecord(
  w: Where,
  l2: number,
  extra: Partial<Omit<StageRecord, keyof Where>> = {},
  precision: PathTrace['precision'] = 'float32',
): StageRecord {
  const { stats: s, ...rest } = extra;
  return { ...w, stats: s ?? stats(l2, { dtype: precision }), ...rest };
}

/**
 * One path's trace of a single piece (PIECE0 unless `piece` is given): the L2 norm of each stage it
 * recorded, and its scalars.
 */
export function pathTrace(
  path: PathName,
  norms: Partial<Record<StageName, number>>,
  scalars: Partial<Record<ScalarName, ScalarValue>> = {},
  p: Pick<PieceInfo, 'step' | 'request'> = PIECE0,
): PathTrace {
  const precision = path === 'reference' ? 'float64' : 'float32';
  return {
    path,
    precision,
    stages: (Object.entries(norms) as [StageName, number][]).map(([stage, l2]) => stageRecord(at(stage, p), l2, {}, precision)),
    pieces: [{ step: p.step, request: p.request, scalars }],
  };
}

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

/**
 * Relative errors of the pairs at one record: `engine` mha↔mqa; `mha`, `mqa`, `cold` each against
 * the reference; `mhaCold`, `mqaCold` each engine path against cold. Unset: 0.
 */
export interface Rel {
  engine?: number | null;
  mha?: number | null;
  mqa?: number | null;
  cold?: number | null;
  mhaCold?: number | null;
  mqaCold?: number | null;
}

export interface PairOptions {
  /** The float64 reference ran (default true). */
  reference?: boolean;
  /** The fp32 cold path ran (default false). */
  cold?: boolean;
  /** Piece and chunk of the record (default PIECE0, no chunk). */
  where?: Partial<Where>;
}

/**
 * The pairs recorded at a stage, by its `paths` in the stage table, in the order run-case compares
 * them: mha↔mqa, mha↔cold, mqa↔cold, then each path against the reference.
 */
export function stagePairs(stage: StageName, rel: Rel, opts: PairOptions | boolean = {}): PairDiff[] {
  const o: PairOptions = typeof opts === 'boolean' ? { reference: opts } : opts;
  const ran: PathName[] = ['mha', 'mqa', ...(o.cold ? ['cold' as const] : []), ...((o.reference ?? true) ? ['reference' as const] : [])];
  const has = (p: PathName) => ran.includes(p) && (STAGES[stage].paths as readonly PathName[]).includes(p);
  const w = o.where ?? {};
  const out: PairDiff[] = [];
  const add = (a: PathName, b: PathName, r: number | null | undefined) => {
    if (has(a) && has(b)) out.push(pairDiff(stage, a, b, r ?? 0, w));
  };
  add('mha', 'mqa', rel.engine);
  add('mha', 'cold', rel.mhaCold);
  add('mqa', 'cold', rel.mqaCold);
  add('mha', 'reference', rel.mha);
  add('mqa', 'reference', rel.mqa);
  add('cold', 'reference', rel.cold);
  return out;
}
