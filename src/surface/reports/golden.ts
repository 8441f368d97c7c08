import Table from 'cli-table3';
import type { CaseDiff, RecordChange, RunSide, RunsComparison } from '../../harness/golden/compare-runs';
import { err, num } from './format';
import type { Style } from './style';

/** Most changed records listed per case; the rest are counted. */
const ROWS = 20;

const label = (w: { stage: string; chunk?: number }) => `${w.stage}${w.chunk === undefined ? '' : `[chunk ${w.chunk}]`}`;
const sideLine = (name: string, r: RunSide) => `${name}: ${r.file} (${r.device.description}; mla-diff ${r.tool}; ${r.created})`;

function what(c: RecordChange): [string, string, string] {
  const g = c.golden,
    n = c.new;
  switch (c.kind) {
    case 'only-golden':
      return ['only in golden', num(g?.l2), '—'];
    case 'only-new':
      return ['only in new', '—', num(n?.l2)];
    case 'shape':
      return ['shape', `[${g!.shape.join(',')}]`, `[${n!.shape.join(',')}]`];
    case 'nan':
      return ['NaN count', String(g!.nanCount), String(n!.nanCount)];
    case 'inf':
      return ['Inf count', String(g!.infCount), String(n!.infCount)];
    case 'norm':
      return [`moved ≥${err(c.moved)} (tol ${err(c.tolerance)})`, num(g!.l2), num(n!.l2)];
  }
}

function outcome(c: CaseDiff): string {
  const v = (x: CaseDiff['golden']) =>
    !x
      ? '—'
      : x.firstDivergence
        ? `diverge at ${label(x.firstDivergence)} ` +
          `(step ${x.firstDivergence.step}, ${x.firstDivergence.request}; culprit ${x.firstDivergence.culprit})`
        : x.verdict;
  return `golden ${v(c.golden)}; new ${v(c.new)}`;
}

function caseBlock(c: CaseDiff, s: Style): string[] {
  if (c.status === 'only-golden' || c.status === 'only-new')
    return [s.bad(`case ${c.name}: ${c.status === 'only-golden' ? 'only in golden' : 'only in new'}`)];
  if (c.status === 'same') return [s.ok(`case ${c.name}: same (${c.compared} records compared; ${outcome(c)})`)];
  const first = c.firstChange
    ? ` — first at ${label(c.firstChange)} (step ${c.firstChange.step}, ${c.firstChange.request}, path ${c.firstChange.path})`
    : '';
  const lines = [s.bad(`case ${c.name}: CHANGED${first}`)];
  if (c.outcomeChanged) lines.push(s.warn(`  outcome: ${outcome(c)}`));
  if (c.changes.length) {
    const t = new Table({
      head: ['step', 'request', 'stage', 'path', 'change', '‖golden‖', '‖new‖'].map((h) => s.bold(h)),
      style: { head: [], border: [], compact: true },
    });
    for (const x of c.changes.slice(0, ROWS)) t.push([String(x.step), x.request, label(x), x.path, ...what(x)]);
    lines.push(t.toString());
    if (c.changes.length > ROWS) lines.push(s.dim(`  … ${c.changes.length - ROWS} more changed record(s) (--format json lists all)`));
  }
  return lines;
}

/** A golden comparison as text: both runs, the rule, then per scenario and case what changed. */
export function renderComparison(c: RunsComparison, s: Style): string {
  const rule =
    c.rule.rel !== undefined
      ? `a record may move by rel ${err(c.rule.rel)}`
      : `a record may move by ${num(c.rule.k)} × its noise floor (rel ${err(c.rule.fallback)} without one)`;
  const lines = [
    s.bold('mla-diff golden comparison'),
    sideLine('golden', c.golden),
    sideLine('new   ', c.new),
    s.dim(`${rule}; statistics only: a norm or max-abs change is a lower bound of the values' relative error`),
  ];
  if (c.deviceDiffers) lines.push(s.warn(`note: the devices differ (${c.golden.device.name} vs ${c.new.device.name})`));
  for (const sc of c.scenarios) {
    lines.push('', s.bold(`scenario ${sc.name}: ${sc.status}`));
    for (const cs of sc.cases) lines.push(...caseBlock(cs, s));
  }
  lines.push('', c.verdict === 'same' ? s.ok('SAME: no record moved beyond its bound') : s.bad('CHANGED'));
  return lines.join('\n');
}
