import type { PairDiff } from '../../trace';
import { CALIBRATED_K } from './floors';

/**
 * How a third party is judged at one record: against the float64 reference at k × its floor (the record's floor with the
 * rounding points it has that our paths do not), k the stage's floor multiple or CALIBRATED_K; a relative rule the scenario
 * sets explicitly stays a lower bound. Without the reference its pairs with our paths are all it has: never below `tolerance`.
 */
export function thirdPartyBounds(
  floor: number,
  term: number,
  o: { k: number | null; tolerance: number; hasRef: boolean; explicit: boolean },
): { tolerance: number; floor: number } {
  const f = Math.hypot(floor, term);
  const kf = (o.k ?? CALIBRATED_K) * f;
  return { tolerance: !o.hasRef || (o.explicit && o.k === null) ? Math.max(o.tolerance, kf) : kf, floor: f };
}

/**
 * The bound of one pair: the third party against the reference at its own bound; against one of our paths, with the
 * reference there, at its bound plus the path's (|ext − P| ≤ |ext − ref| + |P − ref|: it never fails where both pass, so a
 * path's own bit-identical stages are never the third party's judge); pairs among our paths at `tolerance`.
 */
export function pairBound(d: PairDiff, external: number, tolerance: number, hasRef: boolean): number {
  if (d.a !== 'external' && d.b !== 'external') return tolerance;
  if (!hasRef || d.a === 'reference' || d.b === 'reference') return external;
  return external + tolerance;
}
