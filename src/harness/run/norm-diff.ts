import type { StageRecord } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';
import type { PairDiff, Where } from './diff';

/**
 * A pair where one side is known only by its statistics (an external backend's norms, a jsonl
 * engine dump). By the triangle inequality |‖a‖ − ‖b‖| ≤ ‖a − b‖, so the relative norm
 * difference is a lower bound of the relative error: above tolerance it proves a divergence;
 * below it says nothing finer than itself (normOnly marks it).
 */
export function normDiff(w: Where, a: PathName, ra: StageRecord, b: PathName, rb: StageRecord): PairDiff {
  const [na, nb] = [ra.stats.l2, rb.stats.l2];
  const denom = Math.max(na, nb);
  const base = {
    ...w,
    a,
    b,
    maxAbsErr: null,
    maxAbsErrAt: null,
    cosine: null,
    nan: [ra.stats.nanCount, rb.stats.nanCount] as [number, number],
    normOnly: true as const,
  };
  if (ra.stats.size !== rb.stats.size) return { ...base, shapeMatch: false, relErr: null, normRatio: null, infMismatch: 0 };
  return {
    ...base,
    shapeMatch: true,
    relErr: denom > 0 ? Math.abs(na - nb) / denom : 0,
    normRatio: nb > 0 ? na / nb : na === 0 ? 1 : Infinity,
    infMismatch: Math.abs(ra.stats.infCount - rb.stats.infCount),
  };
}
