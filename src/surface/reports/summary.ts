import type { CaseResult, RunReport } from '../../trace';
import { divergenceLine } from './sparkline';
import type { Style } from './style';
import { renderWeights } from './weights';
import { pieceSummaryTable, samePiece } from './table';
import { pieceBlock } from './summary-piece';
import { replayLine } from './summary-replay';
import { stageLabel, verdictLine } from './summary-verdict';
import { culpritText } from './steps';
import { caseOutcomeOf } from '../../harness/compare/outcome';
import { declaredText, ruleNote, runOutcomeText } from './outcome-text';
import { promptTokensLine } from './tokens';

/** Schedules longer than this show a summary line per piece and full tables only where it matters. */
export const FULL_TABLES_UP_TO = 3;

/** One case: header, per-piece tables (all, or a summary and the piece that matters), verdict. */
export function renderCase(r: RunReport, c: CaseResult, s: Style, all = false): string {
  const t = c.trace;
  const run = t.pieces.filter((p) => p.kind !== 'cached');
  const lines = [
    s.bold(
      `${r.scenario.name} · case ${t.name} (${t.label}) · ${run.length} piece(s) · ` + `${r.scenario.preset} · ${r.device.description}`,
    ),
  ];
  const tokens = promptTokensLine(r.scenario, s.width);
  if (tokens) lines.push(s.dim(tokens));
  if (all || run.length <= FULL_TABLES_UP_TO) {
    for (const p of run) lines.push(pieceBlock(r, c, p, s));
  } else {
    lines.push(pieceSummaryTable(c, s));
    const f = c.comparison.firstDivergence;
    const focus = (f && run.find((p) => samePiece(p, f))) ?? run[run.length - 1]!;
    lines.push(s.dim(f ? 'the first divergent piece:' : 'the last piece (--verbose shows every piece):'), pieceBlock(r, c, focus, s));
  }
  const faults = [...r.scenario.faults.mha.map((x) => `mha:${x}`), ...r.scenario.faults.mqa.map((x) => `mqa:${x}`)];
  if (faults.length) lines.push(s.warn(`planted faults: ${faults.join(', ')}`));
  for (const n of t.notes) lines.push(s.dim(`note: ${n}`));
  const e = r.scenario.expect;
  lines.push(verdictLine(c, s, caseOutcomeOf(r, c), e && declaredText(e)));
  const spark = divergenceLine(c, s);
  if (spark) lines.push(spark);
  const replay = replayLine(c, s);
  if (replay) lines.push(replay);
  const [top, ...rest] = c.diagnosis ?? [];
  if (top) lines.push(s.warn(`likely cause: ${top.summary} (${top.evidence})`));
  for (const d of rest) lines.push(s.dim(`also consistent with: ${d.summary} (${d.evidence})`));
  if (c.expectation)
    lines.push(c.expectation.met ? s.ok('expectation met') : s.bad(`expectation NOT met: ${c.expectation.misses.join('; ')}`));
  return lines.join('\n');
}

/**
 * The whole run as text: every case, then timing. `wallSeconds`: the whole wait since the command
 * started (start-up, device, every run, rendering), given for the last run of a live command; the
 * time line then gives it first and the run's own seconds after it.
 */
export function renderRun(r: RunReport, s: Style, all = false, wallSeconds?: number): string {
  const parts = [...(r.weights ? [renderWeights(r.weights, s)] : []), ...r.cases.map((c) => renderCase(r, c, s, all))];
  const per = r.cases.map(
    (c) =>
      `${c.trace.name} ${Object.entries(c.trace.seconds)
        .map(([p, x]) => `${p} ${x!.toFixed(2)}`)
        .join(' ')}`,
  );
  const ref = r.seconds.reference === null ? '' : `; float64 reference ${r.seconds.reference.toFixed(2)} s on a worker thread`;
  parts.push(r.outcome === 'pass' ? s.ok(runOutcomeText(r)) : s.bad(runOutcomeText(r)));
  const wall = wallSeconds === undefined ? '' : `${wallSeconds.toFixed(2)} s since the command started; this run `;
  parts.push(s.dim(`time: ${wall}${r.seconds.total.toFixed(2)} s (weights ${r.seconds.weights.toFixed(2)} s; ${per.join('; ')}${ref})`));
  return parts.join('\n\n');
}

/** One line per scenario, for stdout when the full report goes to a file: PASS/FAIL under the rule, and where it parts. */
export function oneLine(r: RunReport): string {
  const bad = r.cases.filter((c) => c.comparison.verdict === 'diverge');
  const wc = r.weights?.comparison;
  const where = (): string => {
    if (!bad.length && wc?.verdict === 'diverge') {
      const moved = (['mha', 'mqa'] as const).filter((p) => wc.firstActivation[p]).map((p) => `${p} ${wc.firstActivation[p]!.stage}`);
      return (
        `weights differ from ${r.weights!.compare!.label} at ${wc.firstWeight ?? 'no single weight'}` +
        `${moved.length ? `, then ${moved.join(', ')}` : ''}`
      );
    }
    if (!bad.length) return `${r.cases.length} case(s) agree`;
    const f = bad[0]!.comparison.firstDivergence!;
    return (
      `${bad[0]!.trace.name} first diverges at ${stageLabel(f)} ` +
      `(step ${f.step}, ${f.request}; culprit ${culpritText(bad[0]!, f.culprit)})`
    );
  };
  return `${r.outcome === 'pass' ? 'PASS' : 'FAIL'} ${r.scenario.name}: ${where()} on ${r.device.name}${ruleNote(r)}`;
}
