import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Expectation, RunReport, WeightsReport } from '../../trace';
import { caseResult, runReport } from '../../test-utils/reports';
import { checkExpectation } from './expect';
import { allPass, judgeCase, judgeOf, judgeWeights, withOutcome } from './outcome';

const SCALE = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/fault-mqa-scale-576.tp0.report.json'), 'utf8')) as RunReport;

const agree = { comparison: { verdict: 'agree' as const } };
const diverge = { comparison: { verdict: 'diverge' as const } };
const met = { met: true, misses: [] };
const missed = { met: false, misses: ['outcome agree, expected diverge'] };

describe('the one rule', () => {
  it('without expect: a divergence fails and agreement passes, whatever the judge', () => {
    for (const judge of ['expect', 'agreement'] as const) {
      expect(judgeCase(agree, undefined, judge).outcome).toBe('pass');
      expect(judgeCase(diverge, undefined, judge).outcome).toBe('fail');
    }
  });

  it('with expect: passes when the declaration is met, fails when missed (strict: a declared divergence that does not happen)', () => {
    expect(judgeCase({ ...diverge, expectation: met }, 'diverge', 'expect')).toEqual({
      outcome: 'pass',
      declared: 'diverge',
      verdict: 'diverge',
      misses: [],
    });
    expect(judgeCase({ ...agree, expectation: missed }, 'diverge', 'expect')).toMatchObject({ outcome: 'fail', misses: missed.misses });
    expect(judgeCase({ ...diverge, expectation: { met: false, misses: ['x'] } }, 'agree', 'expect').outcome).toBe('fail');
  });

  it('judge agreement (--no-expect) ignores expect:', () => {
    expect(judgeCase({ ...diverge, expectation: met }, 'diverge', 'agreement')).toMatchObject({ outcome: 'fail', declared: null });
    expect(judgeCase({ ...agree, expectation: missed }, 'diverge', 'agreement').outcome).toBe('pass');
    expect(judgeOf({ expect: false })).toBe('agreement');
    expect(judgeOf({})).toBe('expect');
  });

  it('a declared first divergence elsewhere fails (the fixture: logits / mqa declared and met)', () => {
    const c = SCALE.cases[0]!;
    const e = SCALE.scenario.expect!;
    expect(judgeCase(c, e.outcome, 'expect').outcome).toBe('pass');
    const elsewhere: Expectation = { ...e, first_divergence: 'q_pe' };
    expect(judgeCase({ ...c, expectation: checkExpectation(elsewhere, c.comparison) }, 'diverge', 'expect').outcome).toBe('fail');
  });

  it('the weights part: expect.weights when declared, else agreement; none without a second source', () => {
    const w = (verdict: 'agree' | 'diverge', expectation?: typeof met) =>
      ({ comparison: { verdict }, ...(expectation ? { expectation } : {}) }) as unknown as WeightsReport;
    expect(judgeWeights(undefined, undefined, 'expect')).toBeNull();
    expect(judgeWeights(w('diverge'), undefined, 'expect')!.outcome).toBe('fail');
    expect(judgeWeights(w('diverge', met), 'diverge', 'expect')!.outcome).toBe('pass');
    expect(judgeWeights(w('diverge', met), 'diverge', 'agreement')!.outcome).toBe('fail');
  });

  it('withOutcome sets every case, the run and its judge; the saved fixture passes as declared and fails by agreement', () => {
    expect(SCALE).toMatchObject({ judge: 'expect', outcome: 'pass', cases: [{ outcome: 'pass' }] });
    const raw = withOutcome(SCALE, 'agreement');
    expect(raw).toMatchObject({ judge: 'agreement', outcome: 'fail', cases: [{ outcome: 'fail' }] });
    expect(withOutcome(raw, 'expect')).toEqual(SCALE);
    expect(allPass([SCALE])).toBe(true);
    expect(allPass([SCALE, raw])).toBe(false);
  });

  it('a run fails when any case fails', () => {
    const r = runReport([caseResult(), caseResult({ name: 'bad', rel: { lse: { engine: 1, mqa: 1 } } })]);
    expect(r.cases.map((c) => c.outcome)).toEqual(['pass', 'fail']);
    expect(r.outcome).toBe('fail');
  });
});
