import type * as tfc from '@tensorflow/tfjs-core';
import type { Captured } from '../../core/probes/recorder';
import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import { diffCaptured } from '../run/diff';
import { at, ONE_SHOT_STAGES, PIECE0 } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import { WEIGHT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;

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

describe('compareCase: infinities', () => {
  describe('infinities', () => {
    const host = (v: number[]): Captured => ({ where: 'host', data: Float64Array.from(v), shape: [1, 4], layout: 'h t' });
    const diff = (a: number[], b: number[]) =>
      diffCaptured({} as typeof tfc, () => null, at('chunk_lse', { chunk: 0 }), ['mha', host(a)], ['reference', host(b)]);
    const judge = async (a: number[], b: number[]) => {
      const d = await diff(a, b);
      return compareCase(caseTrace([d], { pieces: [{ ...PIECE0, start: 3, chunks: 1 }] }), {});
    };

    it("equal infinities agree (an empty chunk's −inf LSE on both sides)", async () => {
      const c = await judge([-Infinity, -Infinity, 1, 2], [-Infinity, -Infinity, 1, 2]);
      expect(c.verdict).toBe('agree');
      expect(c.stages).toEqual([expect.objectContaining({ stage: 'chunk_lse', chunk: 0, verdict: 'ok' })]);
    });

    it.each([
      ['+inf against −inf', [Infinity, 0, 1, 2], [-Infinity, 0, 1, 2]],
      ['an infinity against a finite value', [Infinity, 0, 1, 2], [5, 0, 1, 2]],
      ['a finite value against an infinity', [5, 0, 1, 2], [-Infinity, 0, 1, 2]],
    ])('an unmatched infinity (%s) → out-of-tolerance, relErr Infinity', async (_what, a, b) => {
      const c = await judge(a, b);
      expect(c.firstDivergence).toMatchObject({
        stage: 'chunk_lse',
        chunk: 0,
        verdict: 'out-of-tolerance',
        culprit: 'mha',
        relErr: Infinity,
      });
    });

    it('an infinite engine-pair error is not the worst engine error', () => {
      const c = compareCase(
        caseTrace([pairDiff('lse', 'mha', 'mqa', Infinity, { infMismatch: 1 }), pairDiff('q', 'mha', 'mqa', 3e-7)]),
        {},
      );
      expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'out-of-tolerance' });
      expect(c.worstEngine).toEqual({ ...at('q'), relErr: 3e-7 });
    });
  });

  it('shape mismatch → shape-mismatch, and it outranks other verdicts at the stage', () => {
    const diffs = withStages({
      attn_out: [
        pairDiff('attn_out', 'mha', 'mqa', null, { shapeMatch: false }),
        pairDiff('attn_out', 'mha', 'reference', BAD),
        pairDiff('attn_out', 'mqa', 'reference', OK, { nan: [1, 0] }),
      ],
    });
    const c = compareCase(caseTrace(diffs), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_out', verdict: 'shape-mismatch', relErr: null });
    expect(c.stages.find((s) => s.stage === 'attn_out')!.pairs.map((p) => p.verdict)).toEqual([
      'shape-mismatch',
      'out-of-tolerance',
      'nan-introduced',
    ]);
  });

  it.each<[StageName, PathName]>([
    ['ql_nope', 'mqa'],
    ['mqa_q', 'mqa'],
    ['attn_out_latent', 'mqa'],
    ['split_lse', 'mqa'],
    ['kv_nope', 'mha'],
    ['k', 'mha'],
    ['suffix_lse', 'mha'],
  ])('one-sided stage %s failing against the reference → culprit %s', (stage, path) => {
    expect(STAGES[stage].compare).toBe('one-sided');
    const c = compareCase(caseTrace(withStages({ [stage]: [pairDiff(stage, path, 'reference', BAD, { normRatio: 1.5 })] })), {});
    expect(c.firstDivergence).toEqual({
      step: 0,
      request: 'prompt',
      stage,
      verdict: 'out-of-tolerance',
      culprit: path,
      relErr: BAD,
      normRatio: 1.5,
    });
  });

  it('the first divergence is the earliest stage in pipeline order, however the diffs are listed', () => {
    const diffs = withStages({
      o_proj_out: stagePairs('o_proj_out', { engine: BAD, mqa: BAD }),
      lse: stagePairs('lse', { engine: BAD, mha: BAD }),
      q_pe: stagePairs('q_pe', { engine: BAD, mha: BAD }),
      logits: stagePairs('logits', { engine: BAD, mqa: BAD }),
    }).reverse();
    expect(diffs[0]!.stage).not.toBe('hidden_in');
    const c = compareCase(caseTrace(diffs), {});
    expect(c.firstDivergence).toMatchObject({ stage: 'q_pe', culprit: 'mha' });
    expect(c.stages.map((s) => s.stage)).toEqual(ONE_SHOT_STAGES);
    expect(c.stages.filter((s) => s.verdict !== 'ok').map((s) => [s.stage, s.culprit])).toEqual([
      ['q_pe', 'mha'],
      ['logits', 'mqa'],
      ['lse', 'mha'],
      ['o_proj_out', 'mqa'],
    ]);
  });

  it('stages are listed in pipeline order even from a shuffled trace', () => {
    const diffs = cleanDiffs();
    const shuffled = diffs
      .map((d, i) => ({ d, k: (i * 7919) % diffs.length }))
      .sort((x, y) => x.k - y.k)
      .map((x) => x.d);
    expect(compareCase(caseTrace(shuffled), {}).stages.map((s) => s.stage)).toEqual(ONE_SHOT_STAGES);
  });

  it('only recorded stages are judged', () => {
    const diffs = [...stagePairs('q', {}), ...stagePairs('lse', {})];
    expect(compareCase(caseTrace(diffs), {}).stages.map((s) => s.stage)).toEqual(['q', 'lse']);
  });
});
