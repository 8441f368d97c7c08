import { judgedTolerance } from '../../harness/compare/compare';
import type { CaseResult, PairVerdict, PieceInfo, StageVerdict, Verdict } from '../../trace';
import type { PathName } from '../../trace/stages';
import { stageOrder } from '../../trace/stages';
import { pathLabel, samePiece } from './table';

/**
 * The rows the HTML report plots, pure functions of a case: which piece is shown, each path's
 * per-stage norm there, each record's error against its tolerance, and the first divergent
 * record's per-head and per-token errors. Log scales cannot show 0 or non-finite values: those
 * rows are left out and counted, so the page can say so.
 */

/** `context_lse[chunk 1]`: a record's stage, with its chunk when it has one. */
export const recordLabel = (f: { stage: string; chunk?: number }): string =>
  `${f.stage}${f.chunk === undefined ? '' : `[chunk ${f.chunk}]`}`;

/** The piece the plots show: the first divergent one, else the last piece that ran. */
export function focusPiece(c: CaseResult): PieceInfo | null {
  const run = c.trace.pieces.filter((p) => p.kind !== 'cached');
  const f = c.comparison.firstDivergence;
  return (f && run.find((p) => samePiece(p, f))) ?? run[run.length - 1] ?? null;
}

export interface NormRow {
  stage: string;
  order: number;
  path: string;
  norm: number;
}
export interface ErrRow {
  stage: string;
  order: number;
  pair: string;
  relErr: number;
  tolerance: number;
  verdict: Verdict;
}
export interface HeadRow {
  axis: string;
  index: number;
  relErr: number;
}

/** What a plot dropped because a log scale cannot draw it (0, NaN, ±Infinity, no measure). */
export interface Plotted<T> {
  rows: T[];
  dropped: number;
}

const drawable = (x: number | null | undefined): x is number => x !== null && x !== undefined && Number.isFinite(x) && x > 0;

/** ‖x‖ (L2 over finite values) of every path at every stage of the piece, in pipeline order. */
export function normRows(c: CaseResult, piece: PieceInfo): Plotted<NormRow> {
  const rows: NormRow[] = [];
  let dropped = 0;
  for (const [p, t] of Object.entries(c.trace.paths)) {
    for (const r of t?.stages ?? []) {
      if (!samePiece(r, piece)) continue;
      if (!drawable(r.stats.l2)) {
        dropped++;
        continue;
      }
      rows.push({ stage: recordLabel(r), order: stageOrder(r.stage, r.chunk), path: pathLabel(c, p as PathName), norm: r.stats.l2 });
    }
  }
  return { rows: rows.sort((a, b) => a.order - b.order), dropped };
}

const isPair = (x: PairVerdict, a: PathName, b: PathName) => (x.a === a && x.b === b) || (x.a === b && x.b === a);

/** The pair a record is plotted by: its worst pair (largest relative error; mha↔mqa on a tie). */
export function plottedPair(v: StageVerdict): PairVerdict | null {
  let worst: PairVerdict | null = null;
  for (const x of v.pairs) {
    if (x.relErr === null) continue;
    if (!worst || x.relErr > (worst.relErr as number) || (x.relErr === worst.relErr && isPair(x, 'mha', 'mqa'))) worst = x;
  }
  return worst ?? v.pairs[0] ?? null;
}

/** Each compared record of the piece: its plotted pair's relative error, its tolerance, its verdict. */
export function errRows(c: CaseResult, piece: PieceInfo): Plotted<ErrRow> {
  const rows: ErrRow[] = [];
  let dropped = 0;
  for (const v of c.comparison.stages) {
    if (!samePiece(v, piece) || !v.pairs.length) continue;
    const x = plottedPair(v);
    if (!x || !drawable(x.relErr)) {
      dropped++;
      continue;
    }
    rows.push({
      stage: recordLabel(v),
      order: stageOrder(v.stage, v.chunk),
      pair: `${pathLabel(c, x.a)}↔${pathLabel(c, x.b)}`,
      relErr: x.relErr,
      tolerance: judgedTolerance(v),
      verdict: v.verdict,
    });
  }
  return { rows: rows.sort((a, b) => a.order - b.order), dropped };
}

/**
 * log10(relErr / tolerance) of every compared record of the piece, in pipeline order, by its
 * plotted pair: −Infinity where exact, NaN where unmeasured (the sparkline's input).
 */
export function errOverTolerance(c: CaseResult, piece: PieceInfo): number[] {
  return c.comparison.stages
    .filter((v) => samePiece(v, piece) && v.pairs.length)
    .sort((a, b) => stageOrder(a.stage, a.chunk) - stageOrder(b.stage, b.chunk))
    .map((v) => {
      const x = plottedPair(v)?.relErr;
      return x === null || x === undefined ? NaN : Math.log10(x / judgedTolerance(v));
    });
}

/** Per-head (absolute head index) and per-query-token (RoPE position) error of the first divergent record. */
export function headRows(c: CaseResult): (Plotted<HeadRow> & { title: string }) | null {
  const d = c.detail?.records[0];
  if (!d || (!d.perHead && !d.perToken)) return null;
  const rows: HeadRow[] = [];
  let dropped = 0;
  const add = (axis: string, values: number[], index: (i: number) => number) =>
    values.forEach((x, i) => {
      if (Number.isFinite(x) && x >= 0) rows.push({ axis, index: index(i), relErr: x });
      else dropped++;
    });
  if (d.perHead) add('head', d.perHead, (i) => c.trace.heads.start + i);
  if (d.perToken) add('token (position)', d.perToken, (i) => d.positions[i] ?? i);
  return {
    rows,
    dropped,
    title: `${recordLabel(d)}, step ${d.step}, request ${d.request}: ${pathLabel(c, d.a)} against ${pathLabel(c, d.b)}`,
  };
}
