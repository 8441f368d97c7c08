import type { StageName } from '../../trace/stages';
import { caseTrace } from '../../test-utils/case-traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import type { PairDiff } from '../run/diff';
import { compareCase, judgedTolerance } from './compare';
import { thirdPartyBounds } from './third-party';
import { CALIBRATED_K } from './floors';
import { thirdPartyTerm } from './floors-engine';

/** Our paths near float64 at `floor` (cold measured: the floor), the third party `ext` from the reference and `vsPath` from mha/mqa. */
function record(stage: StageName, floor: number, ext: number, vsPath = ext): PairDiff[] {
  return [
    ...stagePairs(stage, { engine: floor / 2, mha: floor, mqa: floor, cold: floor, mhaCold: floor, mqaCold: floor }, { cold: true }),
    pairDiff(stage, 'external', 'mha', vsPath),
    pairDiff(stage, 'external', 'mqa', vsPath),
    pairDiff(stage, 'external', 'cold', vsPath),
    pairDiff(stage, 'external', 'reference', ext),
  ];
}
const info = { name: 'hf', kind: 'command' as const, source: 'python3 hf.py', statsOnly: 0 };

describe('a third party is judged by floors against float64', () => {
  it('a correct fp32 implementation at 1.2e-5 where our paths sit at 2e-6 passes (the 1e-5 default would have failed it)', () => {
    const c = compareCase(caseTrace(record('attn_out', 2e-6, 1.2e-5)), {});
    expect(c.verdict).toBe('agree');
    expect(c.stages[0]!.externalTolerance).toBeCloseTo(CALIBRATED_K * 2e-6, 15);
  });

  it('a real bug (far over k floors) fails with the third party named, judged at its own bound', () => {
    const c = compareCase(caseTrace(record('attn_out', 2e-6, 3e-4)), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_out', culprit: 'external', relErr: 3e-4 });
    expect(judgedTolerance(c.stages[0]!)).toBe(c.stages[0]!.externalTolerance);
  });

  it("never judged by our paths' bit-identical shared stages: ext↔mha gets the ext bound plus the path's", () => {
    // hidden_in: mha and mqa agree bit for bit; the third party is 3e-7 from both and from float64, the floor 1e-7.
    const c = compareCase(caseTrace(record('hidden_in', 1e-7, 3e-7, 3.5e-7)), {});
    expect(c.verdict).toBe('agree');
  });

  it('without the reference its pairs with our paths are judged at max(tolerance, k floors)', () => {
    const diffs = [
      pairDiff('attn_out', 'mha', 'mqa', 1e-6),
      pairDiff('attn_out', 'external', 'mha', 3e-4),
      pairDiff('attn_out', 'external', 'mqa', 3e-4),
    ];
    const c = compareCase(caseTrace(diffs), {});
    expect(c.firstDivergence).toMatchObject({ culprit: 'external' });
    expect(c.stages[0]!.externalTolerance).toBe(1e-5);
  });

  it("a scenario's explicit relative rule stays a lower bound", () => {
    const c = compareCase(caseTrace(record('attn_out', 2e-6, 5e-4)), { default: 1e-3 });
    expect(c.verdict).toBe('agree');
    expect(c.stages[0]!.externalTolerance).toBe(1e-3);
  });

  it('the RoPE term of fp32 angles widens the rotated stages only', () => {
    const far = { ...info, ropeAngleError: 3e-5 };
    const t = compareCase(caseTrace(record('q_pe', 1e-7, 4e-5), { external: far }), {});
    expect(t.verdict).toBe('agree');
    const nope = compareCase(caseTrace(record('q_nope', 1e-7, 4e-5), { external: far }), {});
    expect(nope.firstDivergence).toMatchObject({ stage: 'q_nope', culprit: 'external' });
  });
});

describe('thirdPartyTerm and thirdPartyBounds', () => {
  it('RoPE angles and a 16-bit precision the third party reports (when our paths run fp32)', () => {
    expect(thirdPartyTerm(undefined, 'q_pe', 1, false)).toBe(0);
    expect(thirdPartyTerm({ ropeAngleError: 1e-5 }, 'q_pe', 1, false)).toBe(1e-5);
    expect(thirdPartyTerm({ ropeAngleError: 1e-5 }, 'q_nope', 1, false)).toBe(0);
    expect(thirdPartyTerm({ precision: 'bfloat16' }, 'q_c_raw', 1, false)).toBeGreaterThan(2e-3);
    expect(thirdPartyTerm({ precision: 'bfloat16' }, 'q_c_raw', 1, true)).toBe(0); // our paths round too: the floor has it
  });
  it('k × hypot(floor, term); the floor multiple of the rule wins over the calibrated k', () => {
    const b = thirdPartyBounds(3e-6, 4e-6, { k: null, tolerance: 1e-5, hasRef: true, explicit: false });
    expect(b.floor).toBeCloseTo(5e-6, 15);
    expect(b.tolerance).toBeCloseTo(CALIBRATED_K * 5e-6, 15);
    expect(thirdPartyBounds(3e-6, 4e-6, { k: 20, tolerance: 1e-4, hasRef: true, explicit: true }).tolerance).toBeCloseTo(1e-4, 15);
  });
});
