import type { CaseComparison, StageVerdict } from './compare';
import type { CaseReplay, ReplayResult } from './origin';
import { diagnosisView, firstIntroduced, originOf } from './origin';

const verdict = (stage: StageVerdict['stage'], bad: boolean): StageVerdict => ({
  step: 0,
  request: 'p',
  stage,
  verdict: bad ? 'out-of-tolerance' : 'ok',
  tolerance: 1e-5,
  floor: { value: 1e-7, source: 'reference' },
  vsReference: { mqa: bad ? 0.1 : 1e-7 },
  culprit: bad ? 'mqa' : null,
  checks: [],
  pairs: [{ a: 'mqa', b: 'reference', verdict: bad ? 'out-of-tolerance' : 'ok', relErr: bad ? 0.1 : 1e-7, normRatio: 1 }],
});
const result = (stage: ReplayResult['stage'], path: ReplayResult['path'], origin: ReplayResult['origin']): ReplayResult => ({
  step: 0,
  request: 'p',
  stage,
  path,
  origin,
  source: 'reference',
  relErrAfter: null,
  tolerance: 1e-5,
  inputs: [],
});
const comparison = (stages: StageVerdict[]): CaseComparison => ({
  verdict: 'diverge',
  firstDivergence: null,
  stages,
  worstEngine: null,
  scalarMismatches: [],
});

describe('origins of divergent records', () => {
  const cmp = comparison([verdict('q_c', false), verdict('kv_c_normed', true), verdict('logits', true), verdict('lse', true)]);
  const replay: CaseReplay = {
    runs: 2,
    seconds: 0,
    results: [
      result('kv_c_normed', 'mqa', 'inherited'),
      result('logits', 'mha', 'inherited'),
      result('logits', 'mqa', 'introduced'),
      result('lse', 'mqa', 'undetermined'),
    ],
  };

  it('joins the results of every path replayed at a record: introduced if one says so, else inherited only if all do', () => {
    expect(
      ['q_c', 'kv_c_normed', 'logits', 'lse'].map((s) =>
        originOf(
          replay,
          cmp.stages.find((v) => v.stage === s)!,
        ),
      ),
    ).toEqual([null, 'inherited', 'introduced', 'undetermined']);
    expect(originOf(undefined, cmp.stages[1]!)).toBeNull();
  });

  it('hands the diagnosis the first introduced record, and the comparison as is without a replay or an introduced record', () => {
    expect(firstIntroduced(cmp, replay)?.stage).toBe('logits');
    expect(diagnosisView(cmp, replay).firstDivergence).toMatchObject({ stage: 'logits', culprit: 'mqa', relErr: 0.1 });
    expect(diagnosisView(cmp, undefined)).toBe(cmp);
    expect(diagnosisView(cmp, { ...replay, results: [result('logits', 'mqa', 'inherited')] })).toBe(cmp);
  });
});
