/** The rule's words (src/harness/compare/outcome.ts), the same in the table, JUnit, Markdown and HTML. */
import type { PartOutcome } from '../../harness/compare/outcome';
import { caseOutcomeOf, weightsOutcomeOf } from '../../harness/compare/outcome';
import type { Expectation, RunReport } from '../../trace';

/** `diverge at logits, culprit mqa, step 0`: what `expect:` declares. */
export function declaredText(e: Expectation): string {
  const where = [
    e.first_divergence ? `at ${e.first_divergence}` : '',
    e.culprit ? `culprit ${e.culprit}` : '',
    e.step === undefined ? '' : `step ${e.step}`,
    e.request === undefined ? '' : `request ${e.request}`,
  ].filter(Boolean);
  return `${e.outcome}${where.length ? ` ${where.join(', ')}` : ''}`;
}

/**
 * The parenthesis after PASS or FAIL: `divergence as declared`, `expected agree`,
 * `expected diverge at q_pe: first divergence logits, expected q_pe`; null when nothing was declared (or judged by agreement).
 * `declared`: what was declared in full (declaredText), else the declared outcome alone.
 */
export function outcomeNote(o: PartOutcome, declared?: string): string | null {
  if (o.declared === null) return null;
  if (o.outcome === 'pass') return o.declared === 'diverge' ? 'divergence as declared' : null; // agreement needs no note
  const off = o.misses.filter((m) => !m.startsWith('outcome '));
  return `expected ${declared ?? o.declared}${off.length ? `: ${off.join('; ')}` : ''}`;
}

/** `PASS` / `FAIL`, and the note in parentheses when there is one. */
export const outcomeWord = (o: PartOutcome, declared?: string): string => {
  const note = outcomeNote(o, declared);
  return `${o.outcome === 'pass' ? 'PASS' : 'FAIL'}${note ? ` (${note})` : ''}`;
};

/** How the run was judged, in a few words: `judged by declared outcomes` / `judged by agreement (--no-expect)`. */
export const judgeText = (r: Pick<RunReport, 'judge'>): string =>
  r.judge === 'expect' ? 'judged by declared outcomes' : 'judged by agreement (--no-expect)';

/** Every part of a run under the rule: its cases, then the weights part (when compare_weights: ran). */
export function partsOf(r: RunReport): { name: string; o: PartOutcome; declared?: string }[] {
  const w = weightsOutcomeOf(r);
  const e = r.scenario.expect;
  return [
    ...(w ? [{ name: 'weights', o: w }] : []),
    ...r.cases.map((c) => ({ name: c.trace.name, o: caseOutcomeOf(r, c), ...(e ? { declared: declaredText(e) } : {}) })),
  ];
}

/**
 * The run's verdict in one line: `PASS tiny-smoke: 2/2 case(s) pass (1 divergence as declared; judged by declared outcomes)`,
 * or `FAIL …: 1/2 pass; tp0 FAIL (expected agree)`.
 */
export function runOutcomeText(r: RunReport): string {
  const parts = partsOf(r);
  const passed = parts.filter((p) => p.o.outcome === 'pass');
  const declared = passed.filter((p) => p.o.declared === 'diverge').length;
  const notes = [declared ? `${declared} divergence(s) as declared` : '', judgeText(r)].filter(Boolean).join('; ');
  const head = `${r.outcome === 'pass' ? 'PASS' : 'FAIL'} ${r.scenario.name}: ${passed.length}/${parts.length} pass (${notes})`;
  const failed = parts.filter((p) => p.o.outcome === 'fail');
  return failed.length ? `${head}; ${failed.map((p) => `${p.name} ${outcomeWord(p.o, p.declared)}`).join('; ')}` : head;
}

/** Several scenarios: `3/3 scenario(s) pass, 4/4 case(s)` (the exit code's rule over all of them). */
export function runsTotal(reports: readonly RunReport[]): string {
  const parts = reports.flatMap((r) => partsOf(r));
  const ok = parts.filter((p) => p.o.outcome === 'pass').length;
  const runs = reports.filter((r) => r.outcome === 'pass').length;
  const word = runs === reports.length ? 'PASS' : 'FAIL';
  return `${word}: ${runs}/${reports.length} scenario(s) pass, ${ok}/${parts.length} part(s) (cases and weights)`;
}

/**
 * After a one-line verdict, what the rule made of it when the scenario declares an outcome: ` (as declared)`,
 * ` (tp0: expected agree)`, ` (judged by agreement, --no-expect)`; empty when nothing is declared.
 */
export function ruleNote(r: RunReport): string {
  if (!r.scenario.expect) return '';
  if (r.judge === 'agreement') return ' (judged by agreement, --no-expect)';
  const failed = partsOf(r).filter((p) => p.o.outcome === 'fail');
  if (!failed.length) return ' (as declared)';
  return ` (${failed.map((p) => `${p.name}: ${outcomeNote(p.o, p.declared)}`).join('; ')})`;
}
