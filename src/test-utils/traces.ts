import type { PathTrace, StageRecord } from '../core/probes/recorder';
import type { PathName, ScalarName, ScalarValue, StageDef, StageName } from '../trace/stages';
import { STAGE_NAMES, STAGES } from '../trace/stages';
import type { TensorStats } from '../core/probes/stats';
import type { Where } from '../harness/run/diff';
import type { PieceInfo } from '../harness/run/trace';

/**
 * Synthetic traces for tests of compare and reports: no tfjs, just the data shapes. This file holds pieces, records, stats and
 * one path's trace; pairs.ts the diffs between paths, case-traces.ts a whole case's trace.
 */

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

/**
 * Relative errors of the pairs at one record: `engine` mha↔mqa; `mha`, `mqa`, `cold` each against
 * the reference; `mhaCold`, `mqaCold` each engine path against cold. Unset: 0. stagePairs (pairs.ts) takes it.
 */
export interface Rel {
  engine?: number | null;
  mha?: number | null;
  mqa?: number | null;
  cold?: number | null;
  mhaCold?: number | null;
  mqaCold?: number | null;
}
