import { STAGES } from '../../trace/stages';
import type { At, ImportContext } from './locate';
import { attending, bad } from './locate';

/**
 * Weight stages (W_UK_T, W_UV) are one per run: every path of ours records them once, at the first
 * attending piece. A backend may name them for any piece and for several: each copy is filed at that
 * first piece; copies that agree to the bit are one record, copies that differ are refused (a weight
 * that changes between pieces is no weight), external-bad-output naming both pieces.
 */
export function weightHome(ctx: ImportContext, at: At): At {
  return STAGES[at.stage].kind === 'weight' ? { ...at, piece: attending(ctx)[0]! } : at;
}

/** The largest |a − b|, or null when the two copies are the same values (NaN equal to NaN). */
function largestChange(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  if (a.length !== b.length) return Infinity;
  let worst: number | null = null;
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y || (x !== x && y !== y)) continue;
    const d = Math.abs(x - y);
    worst = Math.max(worst ?? 0, d !== d ? Infinity : d);
  }
  return worst;
}

/** One copy of a weight stage as given: the piece it was named for and its values (or its norm). */
export interface WeightCopy {
  named: string;
  values: ArrayLike<number>;
}

/**
 * A second copy of a weight stage: nothing to add when it repeats the first, external-bad-output when it differs.
 */
export function checkWeightCopy(ctx: ImportContext, field: string, stage: string, first: WeightCopy, again: WeightCopy): void {
  const d = largestChange(first.values, again.values);
  if (d === null) return;
  throw bad(
    ctx,
    field,
    `${stage} given for piece ${first.named} and again for ${again.named} with other values (largest |Δ| ${d.toPrecision(3)}): ` +
      'a weight is the same for every piece',
    `write ${stage} once (any piece's name), or the same values for every piece; mla-diff compares it once, at the first attending piece`,
  );
}
