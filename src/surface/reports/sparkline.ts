import type { CaseResult } from '../../trace';
import { err } from './format';
import { errOverTolerance, focusPiece } from './html-data';
import type { Style } from './style';

/** Eight block heights, lowest first: one character per value. */
export const SPARKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;
const { floor, max, min } = Math;

/**
 * A one-line sparkline of `values`, scaled over their finite range (all equal: the middle height).
 * −Infinity draws the lowest block, +Infinity the highest, NaN a `·` (no measure).
 */
export function sparkline(values: readonly number[]): string {
  const finite = values.filter((x) => Number.isFinite(x));
  const lo = finite.length ? min(...finite) : 0;
  const hi = finite.length ? max(...finite) : 0;
  const top = SPARKS.length - 1;
  return values
    .map((x) => {
      if (Number.isNaN(x)) return '·';
      if (x === -Infinity) return SPARKS[0];
      if (x === Infinity) return SPARKS[top];
      if (hi === lo) return SPARKS[top >> 1];
      return SPARKS[min(top, floor(((x - lo) / (hi - lo)) * (top + 1)))];
    })
    .join('');
}

/**
 * The case's divergence across the stages of its first divergent piece (or its last): one block
 * per compared record, the height log10(rel err / tolerance) of its worst pair.
 */
export function divergenceLine(c: CaseResult, s: Style): string | null {
  const piece = focusPiece(c);
  const values = piece ? errOverTolerance(c, piece) : [];
  const finite = values.filter((x) => Number.isFinite(x));
  if (!piece || !finite.length) return null;
  const span = `${err(10 ** min(...finite))}–${err(10 ** max(...finite))} × tolerance`;
  return s.dim(
    `err/tolerance by stage (log): ${sparkline(values)}  ${span}, ${values.length} records of step ${piece.step}, request ${piece.request}`,
  );
}
