import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { Culprit } from '../scenario/scenario';
import type { Rel } from '../../test-utils/traces';
import { ONE_SHOT_STAGES } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import { DEFAULT_REL, WEIGHT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;
const TOL = DEFAULT_REL.float32;

/** Every stage of a one-shot prefill recorded and in agreement (weights exactly), with the reference unless told otherwise. */
function cleanDiffs(withReference = true, where: Partial<Where> = {}): PairDiff[] {
  return ONE_SHOT_STAGES.flatMap((s) => {
    const rel = STAGES[s].kind === 'weight' ? WEIGHT_REL : OK;
    return stagePairs(s, { engine: rel, mha: rel, mqa: rel }, { reference: withReference, where });
  });
}

/** `cleanDiffs` with the pairs of some stages replaced. */
function withStages(replacements: Partial<Record<StageName, PairDiff[]>>, withReference = true): PairDiff[] {
  return [...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)), ...Object.values(replacements).flat()];
}

describe('compareCase', () => {
  it('all pairs under tolerance → agree, no divergence', () => {
    const c = compareCase(caseTrace(cleanDiffs()), {});
    expect(c.verdict).toBe('agree');
    expect(c.firstDivergence).toBeNull();
    expect(c.stages.map((s) => s.stage)).toEqual(ONE_SHOT_STAGES);
    for (const s of c.stages) {
      expect(s).toMatchObject({ step: 0, request: 'prompt', verdict: 'ok', culprit: null, checks: [] });
      expect(s.chunk).toBeUndefined();
    }
  });

  it('an empty trace agrees with no stages', () => {
    const c = compareCase(caseTrace([]), {});
    expect(c).toEqual({ verdict: 'agree', firstDivergence: null, stages: [], worstEngine: null, scalarMismatches: [] });
  });

  it.each<[string, Rel, Culprit]>([
    ['mqa off, mha on the reference', { engine: BAD, mha: OK, mqa: BAD }, 'mqa'],
    ['mha off, mqa on the reference', { engine: BAD, mha: BAD, mqa: OK }, 'mha'],
    ['both off the reference', { engine: BAD, mha: BAD, mqa: BAD * 2 }, 'both'],
    ['engines agree, both off the reference', { engine: OK, mha: BAD, mqa: BAD }, 'shared'],
    ['engines differ, both on the reference', { engine: BAD, mha: OK, mqa: OK }, 'unknown'],
  ])('logits: %s → culprit %s', (_what, rel, culprit) => {
    const c = compareCase(caseTrace(withStages({ logits: stagePairs('logits', rel) })), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ step: 0, request: 'prompt', stage: 'logits', verdict: 'out-of-tolerance', culprit });
    // The reported measure is the engine pair's.
    expect(c.firstDivergence!.relErr).toBe(rel.engine);
    const logits = c.stages.find((s) => s.stage === 'logits')!;
    expect(logits).toMatchObject({ verdict: 'out-of-tolerance', culprit, tolerance: TOL });
    expect(logits.pairs.map((p) => [p.a, p.b])).toEqual([
      ['mha', 'mqa'],
      ['mha', 'reference'],
      ['mqa', 'reference'],
    ]);
  });

  it('no reference: engine pair out of tolerance → unknown', () => {
    const c = compareCase(caseTrace(withStages({ logits: stagePairs('logits', { engine: BAD }, false) }, false)), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'logits', culprit: 'unknown', relErr: BAD });
  });

  it.each<[string, Rel, Culprit]>([
    ['mha the odd one out', { engine: BAD, mhaCold: BAD, mqaCold: OK }, 'mha'],
    ['mqa the odd one out', { engine: BAD, mhaCold: OK, mqaCold: BAD }, 'mqa'],
    ['cold the odd one out', { engine: OK, mhaCold: BAD, mqaCold: BAD }, 'cold'],
    ['all three disagree', { engine: BAD, mhaCold: BAD, mqaCold: BAD }, 'unknown'],
  ])('no reference, cold ran: lse with %s → culprit %s', (_what, rel, culprit) => {
    const diffs = withStages({ lse: stagePairs('lse', rel, { reference: false, cold: true }) }, false);
    const c = compareCase(caseTrace(diffs), {});
    const lse = c.stages.find((s) => s.stage === 'lse')!;
    expect(lse.pairs.map((p) => [p.a, p.b])).toEqual([
      ['mha', 'mqa'],
      ['mha', 'cold'],
      ['mqa', 'cold'],
    ]);
    expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'out-of-tolerance', culprit });
    // The reported measure is still the engine pair's, agreeing or not.
    expect(c.firstDivergence!.relErr).toBe(rel.engine);
  });

  it('cold ran beside the reference: cold alone off the reference → culprit cold', () => {
    const diffs = withStages({
      attn_out: stagePairs('attn_out', { engine: OK, mha: OK, mqa: OK, mhaCold: BAD, mqaCold: BAD, cold: BAD }, { cold: true }),
    });
    const c = compareCase(caseTrace(diffs), {});
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_out', verdict: 'out-of-tolerance', culprit: 'cold', relErr: OK });
    expect(c.stages.find((s) => s.stage === 'attn_out')!.pairs).toHaveLength(6);
  });

  it.each<[[number, number], Culprit]>([
    [[7, 0], 'mha'],
    [[0, 7], 'mqa'],
    [[7, 7], 'both'],
  ])('no reference: NaN (nan %p) → nan-introduced, culprit %s', (nan, culprit) => {
    const diffs = withStages({ lse: [pairDiff('lse', 'mha', 'mqa', OK, { nan })] }, false);
    const c = compareCase(caseTrace(diffs), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'nan-introduced', culprit });
  });

  it.each<[PathName, PathName, [number, number], Culprit]>([
    ['mha', 'cold', [3, 0], 'mha'],
    ['mha', 'cold', [0, 3], 'cold'],
    ['mqa', 'cold', [2, 0], 'mqa'],
  ])('no reference: NaN at a record only %s and %s share (nan %p) → culprit %s', (a, b, nan, culprit) => {
    const c = compareCase(caseTrace(withStages({ k: [pairDiff('k', a, b, 1e-7, { nan })] }, false)), {});
    expect(c.firstDivergence).toMatchObject({ stage: 'k', verdict: 'nan-introduced', culprit });
  });

  it('with a reference: NaN in mqa → nan-introduced, culprit mqa', () => {
    const diffs = withStages({
      attn_probs: [
        pairDiff('attn_probs', 'mha', 'mqa', OK, { nan: [0, 5] }),
        pairDiff('attn_probs', 'mha', 'reference', OK),
        pairDiff('attn_probs', 'mqa', 'reference', OK, { nan: [5, 0] }),
      ],
    });
    const c = compareCase(caseTrace(diffs), {});
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_probs', verdict: 'nan-introduced', culprit: 'mqa' });
  });
});
