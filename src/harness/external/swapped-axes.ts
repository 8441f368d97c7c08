import { MlaDiffError } from '../../errors';
import type { StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { parseLayout } from './layout-map';

/**
 * The layout error the shape check cannot see: two axes of one size read in each other's place. LSE
 * [T, N] written where [N, T] is declared passes the check when T = N, and its values then differ
 * from every path's. Only swaps that involve the token axis t or the key axis s are considered:
 * their sizes meet by the schedule's coincidence (T = N, S = L + R), so a backend that computes a
 * stage right and writes it that way shows the same tensor at any other T, where the check would
 * have refused it. Two model axes of one size (h and v when N = V) can as well be a real bug.
 */
export interface AxisSwap {
  /** The two canonical axes exchanged. */
  axes: [string, string];
  /** transposeHost permutation of the canonical tensor: the values as if written with the two axes exchanged. */
  perm: number[];
  /** The layout the backend wrote, when it declared (or left canonical) `declared`. */
  fix: string;
}

/** The swaps of a token or key axis with another of its size, in a stage's canonical (ungrouped) layout of this shape. */
export function tokenSwaps(stage: StageName, shape: readonly number[], declared: string): AxisSwap[] {
  const canon = parseLayout(STAGES[stage].layout);
  const decl = parseLayout(declared);
  if (typeof canon === 'string' || typeof decl === 'string' || canon.some((g) => g.length !== 1)) return [];
  const names = canon.map((g) => g[0]!);
  const out: AxisSwap[] = [];
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++) {
      const [a, b] = [names[i]!, names[j]!];
      if (shape[i] !== shape[j] || !(['t', 's'].includes(a) || ['t', 's'].includes(b))) continue;
      const perm = names.map((_, k) => (k === i ? j : k === j ? i : k));
      const rename = (x: string) => (x === a ? b : x === b ? a : x);
      const fix = decl.map((g) => (g.length === 1 ? rename(g[0]!) : `(${g.map(rename).join(' ')})`)).join(' ');
      out.push({ axes: [a, b], perm, fix });
    }
  return out;
}

export interface SwapFinding {
  stage: StageName;
  piece: string;
  swap: AxisSwap;
  declared: string;
  /** The path the swapped values agree with, and the relative errors as read and swapped. */
  partner: string;
  asRead: number;
  swapped: number;
  tolerance: number;
  /** `layouts:` of the scenario's external: or trace: block (named in the hint). */
  block: 'external' | 'trace';
}

/** external-layout: the stage was written in another layout than the one it was read in. */
export function swapError(f: SwapFinding): MlaDiffError {
  const [a, b] = f.swap.axes;
  const e = (x: number) => x.toExponential(1);
  return new MlaDiffError(
    'external-layout',
    `${f.stage} of ${f.piece} agrees with ${f.partner} only with its axes ${a} and ${b} exchanged ` +
      `(rel err ${e(f.asRead)} as read in "${f.declared}", ${e(f.swapped)} exchanged, tolerance ${e(f.tolerance)}): ` +
      `the backend wrote "${f.swap.fix}"; the shape check cannot tell them apart when both axes have one size`,
    { field: `${f.block}.layouts.${f.stage}` },
    `declare the layout it writes: layouts: {${f.stage}: "${f.swap.fix}"} ` +
      `(response.json "layouts", or the scenario's ${f.block}: layouts:)`,
  );
}
