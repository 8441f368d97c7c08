import { compareCase } from '../compare/compare';
import { diagnose } from '../compare/diagnose';
import { checkExpectation } from '../compare/expect';
import { diagnosisView } from '../compare/origin';
import { withExternalOrigins } from '../compare/origin-external';
import type { CaseResult, Judge, RunReport, ToleranceSpec } from '../../trace';
import { withOutcome } from '../compare/outcome';
import { recordKey } from '../../core/probes/recorder';

/**
 * Re-judges a saved run with new tolerances, without re-running: compare is a pure function of the
 * trace (compare.ts), the diagnosis of the trace and comparison. The per-token detail and the stage
 * replay were measured under the old tolerances; they are kept where they still describe the new
 * first divergence and dropped otherwise.
 */
export function rejudgeCase(r: RunReport, c: CaseResult, tolerances: ToleranceSpec): CaseResult {
  const comparison = compareCase(c.trace, tolerances);
  const first = comparison.firstDivergence;
  const detail = first && c.detail?.records.some((d) => recordKey(d) === recordKey(first)) ? c.detail : undefined;
  // The third party's origins are read from its records: judged again with the new verdicts.
  const kept = first ? c.replay : undefined;
  const replay = first && r.scenario.replay !== 'off' ? withExternalOrigins(kept, c.trace, comparison) : kept;
  const view = diagnosisView(comparison, replay);
  return {
    trace: c.trace,
    comparison,
    ...(detail ? { detail } : {}),
    diagnosis: diagnose(c.trace, view, r.scenario.config, detail),
    ...(replay ? { replay } : {}),
    ...(r.scenario.expect ? { expectation: checkExpectation(r.scenario.expect, comparison) } : {}),
    outcome: c.outcome, // set again by withOutcome under the run's judge
  };
}

/** The run judged again with new tolerances; its outcome under `judge` (default: the saved run's). */
export function rejudgeRun(r: RunReport, tolerances: ToleranceSpec, judge: Judge = r.judge): RunReport {
  const cases = r.cases.map((c) => rejudgeCase(r, c, tolerances));
  const weightsDiverge = r.weights?.comparison?.verdict === 'diverge';
  return withOutcome(
    {
      ...r,
      scenario: {
        ...r.scenario,
        tolerances: { ...(tolerances.default === undefined ? {} : { default: tolerances.default }), stages: { ...tolerances.stages } },
      },
      verdict: cases.every((c) => c.comparison.verdict === 'agree') && !weightsDiverge ? 'agree' : 'diverge',
      cases,
    },
    judge,
  );
}
