import { judgedTolerance } from '../../harness/compare/compare';
import type { FloorSource, StageVerdict } from '../../trace';
import type { DevicePath } from '../../trace/stages';
import { err, num } from './format';

/** Where a floor came from, as a mark after its value: cold vs reference unmarked. */
export const FLOOR_MARK: Record<FloorSource, string> = { reference: '', paths: 'ᵖ', 'best-path': 'ᵇ', upstream: '↑', minimum: 'ᵐ' };

export const FLOOR_LEGEND =
  'floor: relErr(cold, float64 reference); ᵇ best fp32 path vs reference, ᵖ smallest pairwise difference of three fp32 paths, ' +
  '↑ largest floor upstream in the piece, ᵐ fp32 unit roundoff, ' +
  'ˢ with one rounding of a stage a path stores narrower than cold (docs/noise-floors.md)';

/** `2.1e-7` or `3.4e-7↑`. */
export const floorText = (v: Pick<StageVerdict, 'floor'>): string =>
  `${err(v.floor.value)}${FLOOR_MARK[v.floor.source]}${v.floor.storage ? 'ˢ' : ''}`;

/** Whether any record of the case is judged by a floor-based tolerance. */
export const floorBased = (stages: readonly StageVerdict[]): boolean => stages.some((v) => v.floorMultiple !== undefined);

/** `8×floor = 2.4e-6` for a floor-based tolerance, else the relative bound. */
export const toleranceText = (
  v: Pick<StageVerdict, 'tolerance' | 'floorMultiple'> & Partial<Pick<StageVerdict, 'externalTolerance' | 'culprit'>>,
): string =>
  judgedTolerance(v) !== v.tolerance
    ? `${err(judgedTolerance(v))} (the engine's rounding points)`
    : v.floorMultiple === undefined
      ? err(v.tolerance)
      : `${num(v.floorMultiple)}×floor = ${err(v.tolerance)}`;

/** The largest error at a record in units of its floor: over its pairs, finite ones only. */
export function floorRatio(v: Pick<StageVerdict, 'pairs' | 'floor'>): number | null {
  const xs = v.pairs.map((p) => p.relErr).filter((x): x is number => x !== null && Number.isFinite(x));
  return xs.length ? Math.max(...xs) / v.floor.value : null;
}

/** `mha 3.1e-7, mqa 2.9e-7, cold 3.1e-7`: each fp32 path against the float64 reference. */
export const vsReferenceText = (v: Pick<StageVerdict, 'vsReference'>): string =>
  (Object.entries(v.vsReference) as [DevicePath, number][]).map(([p, x]) => `${p} ${err(x)}`).join(', ');

/** The clause after a failing verdict: the tolerance the record was judged with and err/floor there. */
export function floorClause(v: StageVerdict): string {
  const r = floorRatio(v);
  return `tolerance ${toleranceText(v)}; floor ${floorText(v)}${r === null ? '' : `, err/floor ${num(r)}`}`;
}
