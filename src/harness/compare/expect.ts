import type { CaseComparison, Expectation, ExpectationResult } from '../../trace';

/** Whether a case met the outcome its scenario declares under `expect:` (ExpectationResult: src/trace/case-result.ts). */
export type { ExpectationResult } from '../../trace';

export function checkExpectation(expect: Expectation, c: CaseComparison): ExpectationResult {
  const misses: string[] = [];
  if (c.verdict !== expect.outcome) misses.push(`outcome ${c.verdict}, expected ${expect.outcome}`);
  const first = c.firstDivergence;
  if (expect.first_divergence && first?.stage !== expect.first_divergence) {
    misses.push(`first divergence ${first?.stage ?? 'none'}, expected ${expect.first_divergence}`);
  }
  if (expect.culprit && first?.culprit !== expect.culprit) {
    misses.push(`culprit ${first?.culprit ?? 'none'}, expected ${expect.culprit}`);
  }
  if (expect.step !== undefined && first?.step !== expect.step)
    misses.push(`first divergence at step ${first?.step ?? 'none'}, expected ${expect.step}`);
  if (expect.request !== undefined && first?.request !== expect.request)
    misses.push(`first divergence in request ${first?.request ?? 'none'}, expected ${expect.request}`);
  return { met: misses.length === 0, misses };
}
