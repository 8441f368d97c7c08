import type { Expectation } from '../scenario/scenario';
import type { CaseComparison } from './compare';

/** Whether a case met the outcome its scenario declares under `expect:`. */
export interface ExpectationResult {
  met: boolean;
  /** What did not match, e.g. `first divergence q_pe, expected logits`. */
  misses: string[];
}

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
  if (expect.step !== undefined && first?.step !== expect.step) misses.push(`first divergence at step ${first?.step ?? 'none'}, expected ${expect.step}`);
  if (expect.request !== undefined && first?.request !== expect.request) misses.push(`first divergence in request ${first?.request ?? 'none'}, expected ${expect.request}`);
  return { met: misses.length === 0, misses };
}
