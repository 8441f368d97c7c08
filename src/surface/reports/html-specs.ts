import type { TopLevelSpec } from 'vega-lite';
import type { Verdict } from '../../trace';
import type { ErrRow, HeadRow, NormRow } from './html-data';

/**
 * Vega-Lite specs of the HTML report's plots: pure data in, a declarative spec out (rendered to
 * SVG by html-render.ts). Stages keep pipeline order through their `order` field.
 */

const WIDTH = 760;
/** A plot's title and the line under it. */
export interface Title {
  text: string;
  subtitle?: string;
}
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';
const FONT = { font: 'system-ui, sans-serif', labelFont: 'system-ui, sans-serif', titleFont: 'system-ui, sans-serif' };
const CONFIG = {
  axis: { labelFont: FONT.labelFont, titleFont: FONT.titleFont },
  legend: { labelFont: FONT.labelFont, titleFont: FONT.titleFont },
  title: { font: FONT.font, subtitleFont: FONT.font, anchor: 'start' as const },
};
const STAGE_AXIS = {
  field: 'stage',
  type: 'ordinal' as const,
  sort: { field: 'order', op: 'min' as const },
  title: 'stage (pipeline order)',
  axis: { labelAngle: -45 },
};

/** Verdict colours: ok green, out of tolerance orange, broken invariants, NaN and shapes red. */
export const VERDICT_COLOURS: Record<Verdict, string> = {
  ok: '#2a9d4b',
  'out-of-tolerance': '#e07b00',
  'invariant-violated': '#c0392b',
  'nan-introduced': '#8e0000',
  'shape-mismatch': '#6a1b9a',
};

/** Plot 1: ‖x‖ of every path per stage, log y; paths that agree lie on one another. */
export function normSpec(rows: NormRow[], title: Title): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: 220,
    config: CONFIG,
    data: { values: rows },
    mark: { type: 'line', point: { filled: true, size: 40 }, strokeWidth: 1.5 },
    encoding: {
      x: STAGE_AXIS,
      y: { field: 'norm', type: 'quantitative', scale: { type: 'log' }, title: '‖x‖ (L2, log scale)' },
      color: { field: 'path', type: 'nominal', title: 'path' },
      strokeDash: { field: 'path', type: 'nominal', title: 'path' },
      tooltip: [{ field: 'path' }, { field: 'stage' }, { field: 'norm', format: '.4~g' }],
    },
  };
}

/** Plot 2: each record's relative error (points, coloured by verdict) against its tolerance (dashed). */
export function errSpec(rows: ErrRow[], title: Title): TopLevelSpec {
  const verdicts = Object.keys(VERDICT_COLOURS) as Verdict[];
  return {
    $schema: SCHEMA,
    title,
    width: WIDTH,
    height: 200,
    config: CONFIG,
    data: { values: rows },
    encoding: { x: STAGE_AXIS },
    layer: [
      {
        mark: { type: 'line', strokeDash: [5, 3], color: '#555', point: { shape: 'stroke', size: 80, color: '#555' } },
        encoding: { y: { field: 'tolerance', type: 'quantitative', scale: { type: 'log' }, title: 'relative error (log)' } },
      },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          y: { field: 'relErr', type: 'quantitative', scale: { type: 'log' } },
          color: {
            field: 'verdict',
            type: 'nominal',
            scale: { domain: verdicts, range: verdicts.map((v) => VERDICT_COLOURS[v]) },
            title: 'verdict',
          },
          tooltip: [
            { field: 'stage' },
            { field: 'pair' },
            { field: 'relErr', format: '.2e' },
            { field: 'tolerance', format: '.2e' },
            { field: 'verdict' },
          ],
        },
      },
    ],
  };
}

/** Plot 3: per-head and per-query-token error of the first divergent record, one heatmap row each. */
export function headSpec(rows: HeadRow[], title: Title): TopLevelSpec {
  const columns = new Set(rows.map((r) => r.index)).size;
  return {
    $schema: SCHEMA,
    title,
    width: Math.min(WIDTH, Math.max(240, 26 * columns)),
    height: { step: 34 },
    config: CONFIG,
    data: { values: rows },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
        encoding: {
          color: { field: 'relErr', type: 'quantitative', scale: { scheme: 'orangered', zero: true }, title: 'rel err' },
          tooltip: [{ field: 'axis' }, { field: 'index' }, { field: 'relErr', format: '.3e' }],
        },
      },
    ],
    encoding: {
      x: { field: 'index', type: 'ordinal', title: 'head index · query position' },
      y: { field: 'axis', type: 'nominal', title: null, sort: ['head', 'token (position)'] },
    },
  };
}
