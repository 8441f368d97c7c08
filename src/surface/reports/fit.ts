import Table from 'cli-table3';
import { listLayout, wrapWords } from './list-layout';
import type { Style } from './style';
import { stripAnsi, visibleWidth } from './visible-width';

/** cli-table3's padding: one column either side of each cell's content. */
const PAD = 2;

export interface FitOptions {
  /** The columns of prose that may wrap (indices); every other column (names, numbers) keeps its width. */
  wrap: readonly number[];
  /** The fewest content columns a wrapping column may get before the table gives up (default 24). */
  minWrap?: number;
  /** Groups of columns that may be left out, a group at a time in this order, when wrapping is not enough (named under the table). */
  drop?: readonly (readonly number[])[];
  /** What a table that still cannot fit becomes: one block per row ('list'), or the table at full width ('overflow'). */
  fallback: 'list' | 'overflow';
}

/**
 * Column widths (padding included, as cli-table3's colWidths) for columns of `natural` widths in a
 * table of at most `width` columns, borders included: the `wrap` columns share what the others leave,
 * the narrowest first, none past its natural width. The natural widths when they fit; null when a
 * wrapping column would get fewer than `minWrap` content columns (or there is none to wrap).
 */
export function fitColumns(natural: readonly number[], wrap: readonly number[], width: number, minWrap = 24): number[] | null {
  const total = natural.reduce((a, b) => a + b, 0) + natural.length + 1;
  if (total <= width) return [...natural];
  const flex = [...new Set(wrap)].filter((i) => i >= 0 && i < natural.length);
  if (flex.length === 0) return null;
  const fixed = natural.reduce((a, w, i) => a + (flex.includes(i) ? 0 : w), 0);
  let left = width - (natural.length + 1) - fixed;
  const out = [...natural];
  const order = [...flex].sort((a, b) => natural[a]! - natural[b]!);
  for (const [k, i] of order.entries()) {
    const share = Math.floor(left / (order.length - k));
    const w = Math.min(natural[i]!, share);
    if (w < Math.min(natural[i]!, minWrap + PAD)) return null;
    out[i] = w;
    left -= w;
  }
  return out;
}

type Cell = Table.Cell;
const content = (c: Cell): string =>
  c !== null && typeof c === 'object' ? String((c as Table.CellOptions).content ?? '') : String(c ?? '');
const spans = (c: Cell) => c !== null && typeof c === 'object' && ((c as Table.CellOptions).colSpan ?? 1) > 1;

/** The rows of a cli-table3 table of plain rows (arrays of cells), its head first. */
function rowsOf(t: Table.Table): Cell[][] {
  return [t.options.head ?? [], ...(t as unknown as Cell[][])];
}

/** Each column's natural width (padding included): its widest cell, rows with a spanning cell left out. */
export function naturalWidths(rows: readonly (readonly Cell[])[]): number[] {
  const out: number[] = [];
  for (const r of rows) {
    if (r.some(spans)) continue;
    r.forEach((c, i) => (out[i] = Math.max(out[i] ?? 0, visibleWidth(content(c)) + PAD)));
  }
  return out;
}

/** The table less the columns `gone` (indices): head, alignments and rows; a spanning cell spans the columns it keeps. */
function withoutColumns(t: Table.Table, gone: ReadonlySet<number>): Table.Table {
  const o = t.options;
  const keep = (_: unknown, i: number) => !gone.has(i);
  const out = new Table({ ...o, head: o.head.filter(keep), colAligns: o.colAligns.filter(keep), colWidths: [], rowHeights: [] });
  for (const r of t as unknown as Cell[][]) {
    const row: Cell[] = [];
    let x = 0;
    for (const c of r) {
      const span = spans(c) ? (c as Table.CellOptions).colSpan! : 1;
      const kept = Array.from({ length: span }, (_, k) => x + k).filter((i) => !gone.has(i)).length;
      if (kept > 0) row.push(span > 1 ? { ...(c as Table.CellOptions), colSpan: kept } : c);
      x += span;
    }
    out.push(row);
  }
  return out;
}

/**
 * A cli-table3 table of plain rows, as text that fits `s.width`: unchanged without a width (pipes,
 * files, --wide) or when it fits; else its prose columns wrap on word boundaries (a word wider than
 * its column is elided with '…'); where that leaves too little room, the `drop` columns go, a group
 * at a time, named under the table; where even that is not enough, the fallback. The table's options
 * are set in place: render it with this once, as the last step.
 */
export function fitTable(t: Table.Table, s: Style, o: FitOptions): string {
  const width = s.width;
  if (width === undefined) return t.toString();
  const natural = naturalWidths(rowsOf(t));
  const gone = new Set<number>();
  for (const d of [undefined, ...(o.drop ?? [])]) {
    for (const i of d ?? []) gone.add(i);
    const shown = natural.map((_, i) => i).filter((i) => !gone.has(i));
    const wrap = o.wrap.filter((i) => !gone.has(i)).map((i) => shown.indexOf(i));
    const widths = fitColumns(
      shown.map((i) => natural[i]!),
      wrap,
      width,
      o.minWrap,
    );
    if (widths === null) continue;
    const u = gone.size ? withoutColumns(t, gone) : t;
    if (widths.some((w, k) => w !== natural[shown[k]!])) {
      u.options.colWidths = widths;
      u.options.wordWrap = true;
    }
    if (!gone.size) return u.toString();
    const names = [...gone].sort((a, b) => a - b).map((i) => stripAnsi(content(t.options.head[i])));
    return `${u.toString()}\n${s.dim(fitText(`${names.join(', ')} left out to fit ${width} columns; --wide shows them`, s))}`;
  }
  if (o.fallback === 'overflow') return t.toString();
  const [head, ...body] = rowsOf(t);
  return listLayout(
    (head ?? []).map((h) => stripAnsi(content(h))),
    body.map((r) => (r.some(spans) ? [content(r[0]!)] : r.map(content))),
    o.wrap,
    width,
    s,
  );
}

/** Prose wrapped to `s.width`, each line on its own (continuation lines indented by `indent`); as it is without a width. */
export const fitText = (text: string, s: Style, indent = 2): string =>
  s.width === undefined
    ? text
    : text
        .split('\n')
        .map((l) => wrapWords(l, s.width!, indent, 0).join('\n'))
        .join('\n');
