import { compareWeights } from '../../harness/compare/weights';
import type { WeightsReport } from '../../harness/run/run-weights';
import type { WeightRecord } from '../../core/weights/records';
import { PLAIN } from './style';
import { renderWeights } from './weights';

const rec = (name: WeightRecord['name'], dtype: string): WeightRecord => ({
  name,
  tensors: [`blk.0.${name}`],
  dtype,
  shape: [4, 8],
  norm: 2,
  maxAbs: 1,
  nonFinite: 0,
  checksum: '0123456789abcdef',
  boundNorm: 0.01,
});

describe('the W stage report', () => {
  it('one source: a row per weight with dtype, shape, norm and checksum', () => {
    const w: WeightsReport = { primary: { label: 'gguf x.gguf layer 0', records: [rec('q_a_proj', 'Q8_0')] } };
    const text = renderWeights(w, PLAIN);
    expect(text).toContain('weights: gguf x.gguf layer 0');
    expect(text).toMatch(/q_a_proj .*Q8_0 .*\[4,8\] .*0123456789abcdef/);
  });
  it('two sources: the first differing weight marked, the half of kv_b_proj named, where each path moved', () => {
    const base = (n: WeightRecord['name'], rel: number) => ({
      name: n,
      relErr: rel,
      maxAbsErr: rel,
      maxAbsErrAt: [1, 2],
      allowed: 0.01,
      beyond: rel > 0.01 ? 9 : 0,
      nonFinite: [0, 0] as [number, number],
      shapeMatch: true,
    });
    const comparison = compareWeights(
      [base('kv_b_proj', 1), base('W_UK', 1.4), base('W_UV', 0.001)],
      [
        { step: 0, request: 'prompt', stage: 'k_nope', path: 'mha', relErr: 1.4 },
        { step: 0, request: 'prompt', stage: 'ql_nope', path: 'mqa', relErr: 1.3 },
      ],
    );
    const names = ['kv_b_proj', 'W_UK', 'W_UV'] as const;
    const w: WeightsReport = {
      primary: { label: 'a', records: names.map((n) => rec(n, 'Q8_0')) },
      compare: { label: 'b', records: names.map((n) => rec(n, 'BF16')) },
      comparison,
      expectation: { met: true, misses: [] },
    };
    const text = renderWeights(w, PLAIN);
    expect(text).toMatch(/kv_b_proj .*diverge: 9 elements past bound ◀ first/);
    expect(text).toMatch(/W_UV .*ok/);
    expect(text).toContain('FAIL weights: first differing weight kv_b_proj (its W_UK rows; W_UV agrees); mha first moves at k_nope');
    expect(text).toContain('mqa first moves at ql_nope');
    expect(text).toContain('weights expectation met');
  });
});
