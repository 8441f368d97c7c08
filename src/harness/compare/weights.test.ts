import type { AcrossDiff, WeightDiff } from './weights';
import { compareWeights, judgeWeight } from './weights';
import { ACROSS_FLOOR, ACROSS_GAIN, allowedAcross, weightsOf } from './weight-deps';

const w = (name: WeightDiff['name'], relErr: number, allowed: number, extra: Partial<WeightDiff> = {}): WeightDiff => ({
  name,
  relErr,
  maxAbsErr: relErr,
  maxAbsErrAt: [0, 0],
  allowed,
  beyond: 0,
  nonFinite: [0, 0],
  shapeMatch: true,
  ...extra,
});
const a = (path: 'mha' | 'mqa', stage: AcrossDiff['stage'], relErr: number): AcrossDiff => ({
  step: 0,
  request: 'prompt',
  stage,
  path,
  relErr,
});

describe('weights across two sources', () => {
  it('a weight agrees up to its bound, not beyond; NaN and shape mismatches are their own verdicts', () => {
    expect(judgeWeight(w('q_a_proj', 0.01, 0.01))).toBe('agree');
    expect(judgeWeight(w('q_a_proj', 0.0101, 0.01))).toBe('diverge');
    expect(judgeWeight(w('q_a_proj', 0, 0))).toBe('agree');
    expect(judgeWeight(w('q_a_proj', 0, 0, { nonFinite: [1, 0] }))).toBe('non-finite');
    expect(judgeWeight(w('q_a_proj', 0, 0, { shapeMatch: false }))).toBe('shape-mismatch');
  });
  it('an activation may move GAIN·√Σε² over the weights upstream of it', () => {
    const eps = new Map([
      ['embed_tokens', 0.003],
      ['input_layernorm', 0.004],
      ['q_a_proj', 0.012],
    ] as const);
    expect(weightsOf('q_c_raw')).toEqual(['embed_tokens', 'input_layernorm', 'q_a_proj']);
    expect(allowedAcross('q_c_raw', eps)).toBeCloseTo(ACROSS_FLOOR + ACROSS_GAIN * 0.013, 12);
    expect(allowedAcross('hidden_in', eps)).toBeCloseTo(ACROSS_FLOOR + ACROSS_GAIN * 0.005, 12);
    expect(weightsOf('o_proj_out')).toContain('o_proj');
    expect(weightsOf('ql_nope')).toContain('W_UK');
    expect(weightsOf('ql_nope')).not.toContain('W_UV');
  });
  it('localizes a wrong kv_b_proj: the first weight, then per path the first activation that moved (kv_nope refined to its half)', () => {
    const weights = [
      w('embed_tokens', 0, 0),
      w('q_a_proj', 0.004, 0.01),
      w('kv_b_proj', 1.0, 0.01),
      w('W_UK', 1.4, 0.01),
      w('W_UV', 0.004, 0.01),
    ];
    const across = [
      a('mha', 'q', 0.005),
      a('mha', 'kv_nope', 1.1),
      a('mha', 'k_nope', 1.4),
      a('mha', 'v', 0.005),
      a('mqa', 'q', 0.005),
      a('mqa', 'ql_nope', 1.3),
    ];
    const c = compareWeights(weights, across);
    expect(c.verdict).toBe('diverge');
    expect(c.firstWeight).toBe('kv_b_proj');
    expect(c.firstActivation.mha?.stage).toBe('k_nope');
    expect(c.firstActivation.mqa?.stage).toBe('ql_nope');
    expect(c.activations.find((x) => x.stage === 'v')!.verdict).toBe('agree');
  });
  it('agree when every weight and every activation is within bounds', () => {
    const c = compareWeights([w('q_a_proj', 0.004, 0.01)], [a('mha', 'q_c_raw', 0.004)]);
    expect(c).toMatchObject({ verdict: 'agree', firstWeight: null, firstActivation: {} });
  });
});
