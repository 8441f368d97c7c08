/** Synthetic diffs between paths for tests: one pair at a record, or every pair a stage records at given relative errors. */
import type { PathName, StageName } from '../trace/stages';
import { STAGES } from '../trace/stages';
import type { PairDiff, Where } from '../harness/run/diff';
import type { Rel } from './traces';
import { at } from './traces';

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
