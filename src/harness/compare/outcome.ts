import type { CaseResult, ExpectationResult, Judge, Outcome, PassFail, RunReport, WeightsReport } from '../../trace';

/**
 * The one rule every output follows (exit code, table, JUnit, Markdown, HTML, JSON): pure functions of a report.
 *
 * - judge `expect` (the default): a case with `expect:` passes when its declared outcome is met (strict, as pytest's xfail: a
 *   declared divergence that does not happen fails, and so does a declared first_divergence, culprit, step or request that
 *   differs); a case without `expect:` passes when its paths agree. The compare_weights part likewise with `expect.weights`.
 * - judge `agreement` (`--no-expect`): every part passes when its paths agree, whatever the scenario declares.
 *
 * A run passes when every case and the weights part pass.
 */

/** A case as the rule reads it: its verdict and, with `expect:`, whether the declaration was met. */
export type JudgedCase = { comparison: { verdict: Outcome }; expectation?: ExpectationResult };

/** Why a part passed or failed under the rule: what it declared (or nothing), and what happened. */
export interface PartOutcome {
  outcome: PassFail;
  /** What the scenario declared, null without `expect:` (or judged by agreement). */
  declared: Outcome | null;
  /** The paths' own verdict. */
  verdict: Outcome;
  /** What missed the declaration (empty when met or undeclared). */
  misses: string[];
}

function part(verdict: Outcome, e: ExpectationResult | undefined, declared: Outcome | undefined, judge: Judge): PartOutcome {
  if (judge === 'expect' && e && declared) return { outcome: e.met ? 'pass' : 'fail', declared, verdict, misses: e.met ? [] : e.misses };
  return { outcome: verdict === 'agree' ? 'pass' : 'fail', declared: null, verdict, misses: [] };
}

/** One case under the rule; `declared` is the scenario's `expect.outcome`. */
export function judgeCase(c: JudgedCase, declared: Outcome | undefined, judge: Judge): PartOutcome {
  return part(c.comparison.verdict, c.expectation, declared, judge);
}

/** The compare_weights part (null without a second source): `expect.weights` when declared, else agreement. */
export function judgeWeights(w: WeightsReport | undefined, declared: Outcome | undefined, judge: Judge): PartOutcome | null {
  const wc = w?.comparison;
  if (!w || !wc) return null;
  return part(wc.verdict, w.expectation, declared, judge);
}

export type UnjudgedReport = Omit<RunReport, 'judge' | 'outcome' | 'cases'> & { cases: Omit<CaseResult, 'outcome'>[] };

/** A case of the report under the rule. */
export const caseOutcomeOf = (r: Pick<RunReport, 'scenario' | 'judge'>, c: JudgedCase): PartOutcome =>
  judgeCase(c, r.scenario.expect?.outcome, r.judge);

/** The weights part of the report under the rule (null without compare_weights:). */
export const weightsOutcomeOf = (r: Pick<RunReport, 'scenario' | 'judge' | 'weights'>): PartOutcome | null =>
  judgeWeights(r.weights, r.scenario.expect?.weights?.outcome, r.judge);

/** The report with every case's outcome, the run's outcome and its judge set under `judge`. */
export function withOutcome(r: UnjudgedReport | RunReport, judge: Judge): RunReport {
  const declared = r.scenario.expect;
  const cases = r.cases.map((c) => ({ ...c, outcome: judgeCase(c, declared?.outcome, judge).outcome }));
  const weights = judgeWeights(r.weights, declared?.weights?.outcome, judge);
  const pass = cases.every((c) => c.outcome === 'pass') && (weights?.outcome ?? 'pass') === 'pass';
  const { cases: _, ...rest } = r as RunReport;
  return { ...rest, judge, outcome: pass ? 'pass' : 'fail', cases };
}

/** Every report passes. */
export const allPass = (reports: readonly Pick<RunReport, 'outcome'>[]): boolean => reports.every((r) => r.outcome === 'pass');

/** The judge a command's `--no-expect` flag asks for. */
export const judgeOf = (a: { expect?: boolean }): Judge => (a.expect === false ? 'agreement' : 'expect');
