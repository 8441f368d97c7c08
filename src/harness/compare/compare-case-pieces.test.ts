import type { StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import { ONE_SHOT_STAGES, piece } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import type { ToleranceSpec } from './tolerance';
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

const label = (s: Where) => `${s.step}/${s.request}/${s.stage}${s.chunk === undefined ? '' : `[${s.chunk}]`}`;

describe('compareCase: across pieces and chunks', () => {
  describe('across pieces and chunks', () => {
    it('an earlier step wins over an earlier stage, however the diffs are listed', () => {
      const pieces = [piece(0, 'b'), piece(1, 'a')];
      const diffs = [
        ...cleanDiffs(true, { step: 0, request: 'b' }).filter((d) => d.stage !== 'o_proj_out'),
        ...stagePairs('o_proj_out', { engine: BAD, mqa: BAD }, { where: { step: 0, request: 'b' } }),
        ...cleanDiffs(true, { step: 1, request: 'a' }).filter((d) => d.stage !== 'hidden_in'),
        ...stagePairs('hidden_in', { engine: BAD, mha: BAD }, { where: { step: 1, request: 'a' } }),
      ].reverse();
      const c = compareCase(caseTrace(diffs, { pieces }), {});
      expect(c.firstDivergence).toMatchObject({ step: 0, request: 'b', stage: 'o_proj_out', culprit: 'mqa' });
      expect(c.stages.filter((s) => s.verdict !== 'ok').map(label)).toEqual(['0/b/o_proj_out', '1/a/hidden_in']);
      // Every record of step 0 comes before any of step 1.
      expect(c.stages.map((s) => s.step)).toEqual([...ONE_SHOT_STAGES.map(() => 0), ...ONE_SHOT_STAGES.map(() => 1)]);
    });

    it("within a step, pieces follow the schedule's order, not their names", () => {
      // The engine runs decodes first: z (decode) before a (prefill) in step 4.
      const pieces = [piece(4, 'z', { kind: 'decode', count: 1, start: 9 }), piece(4, 'a')];
      const diffs = [
        ...stagePairs('attn_out', { engine: BAD, mha: BAD }, { where: { step: 4, request: 'a' } }),
        ...stagePairs('o_proj_out', { engine: BAD, mqa: BAD }, { where: { step: 4, request: 'z' } }),
      ];
      const c = compareCase(caseTrace(diffs, { pieces }), {});
      expect(c.stages.map(label)).toEqual(['4/z/o_proj_out', '4/a/attn_out']);
      expect(c.firstDivergence).toMatchObject({ step: 4, request: 'z', stage: 'o_proj_out', culprit: 'mqa' });
    });

    it('chunked stages run chunk by chunk: chunk 0 of a late stage before chunk 1 of an early one', () => {
      const pieces = [piece(2, 'a', { start: 10, chunks: 2 })];
      const where = { step: 2, request: 'a' };
      const pair = (stage: StageName, chunk: number | undefined, rel: number) =>
        pairDiff(stage, 'mha', 'reference', rel, { ...where, chunk });
      const diffs = [
        pairDiff('split_lse', 'mqa', 'reference', OK, where),
        pair('ctx_workspace', 1, BAD),
        pair('chunk_lse', 1, OK),
        pair('context_lse', 1, OK),
        pair('context_lse', 0, BAD),
        pair('chunk_lse', 0, OK),
        pair('ctx_workspace', 0, OK),
        pair('suffix_lse', undefined, OK),
      ];
      const c = compareCase(caseTrace(diffs, { pieces }), {});
      expect(c.stages.map((s) => `${s.stage}${s.chunk === undefined ? '' : `[${s.chunk}]`}`)).toEqual([
        'suffix_lse',
        'ctx_workspace[0]',
        'chunk_lse[0]',
        'context_lse[0]',
        'ctx_workspace[1]',
        'chunk_lse[1]',
        'context_lse[1]',
        'split_lse',
      ]);
      expect(c.firstDivergence).toMatchObject({ ...where, stage: 'context_lse', chunk: 0, culprit: 'mha' });
      expect(c.stages.filter((s) => s.verdict !== 'ok').map((s) => [s.stage, s.chunk])).toEqual([
        ['context_lse', 0],
        ['ctx_workspace', 1],
      ]);
    });

    it('the same stage in two pieces is judged once per piece', () => {
      const pieces = [piece(0, 'a'), piece(0, 'b')];
      const diffs = [
        ...stagePairs('lse', {}, { where: { step: 0, request: 'a' } }),
        ...stagePairs('lse', { engine: BAD, mqa: BAD }, { where: { step: 0, request: 'b' } }),
      ];
      const c = compareCase(caseTrace(diffs, { pieces }), {});
      expect(c.stages.map((s) => [s.request, s.verdict])).toEqual([
        ['a', 'ok'],
        ['b', 'out-of-tolerance'],
      ]);
      expect(c.stages.every((s) => s.pairs.length === 3)).toBe(true);
    });
  });

  it.each<[string, ToleranceSpec, 'agree' | 'diverge', number]>([
    ['dtype default', {}, 'diverge', TOL],
    ['looser stage override', { stages: { logits: 1e-2 } }, 'agree', 1e-2],
    ['looser default', { default: 1e-2 }, 'agree', 1e-2],
    ['override on another stage', { stages: { lse: 1e-2 } }, 'diverge', TOL],
    ['tighter stage override wins over a loose default', { default: 1, stages: { logits: 1e-4 } }, 'diverge', 1e-4],
  ])('logits at rel 1e-3 with %s → %s', (_what, spec, verdict, tolerance) => {
    const c = compareCase(caseTrace(withStages({ logits: stagePairs('logits', { engine: 1e-3, mqa: 1e-3 }) })), spec);
    expect(c.verdict).toBe(verdict);
    expect(c.stages.find((s) => s.stage === 'logits')!.tolerance).toBe(tolerance);
  });

  it('a per-stage override applies to every chunk of a chunked stage', () => {
    const pieces = [piece(1, 'a', { start: 8, chunks: 2 })];
    const diffs = [0, 1].map((chunk) => pairDiff('chunk_output', 'mha', 'reference', 1e-3, { step: 1, request: 'a', chunk }));
    expect(compareCase(caseTrace(diffs, { pieces }), {}).stages.map((s) => s.verdict)).toEqual(['out-of-tolerance', 'out-of-tolerance']);
    const c = compareCase(caseTrace(diffs, { pieces }), { stages: { chunk_output: 1e-2 } });
    expect(c.verdict).toBe('agree');
    expect(c.stages.map((s) => s.tolerance)).toEqual([1e-2, 1e-2]);
  });

  it('a per-stage override can make an otherwise passing stage fail', () => {
    const c = compareCase(caseTrace(cleanDiffs()), { stages: { attn_out: OK / 2 } });
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_out', culprit: 'both' });
  });

  it('weight stages are judged with WEIGHT_REL, not the activation default', () => {
    const rel = 5e-6;
    expect(rel).toBeGreaterThan(WEIGHT_REL);
    expect(rel).toBeLessThan(TOL);
    const diffs = withStages({ W_UK_T: [pairDiff('W_UK_T', 'mqa', 'reference', rel)] });
    const c = compareCase(caseTrace(diffs), {});
    expect(c.stages.find((s) => s.stage === 'W_UK_T')!.tolerance).toBe(WEIGHT_REL);
    expect(c.firstDivergence).toMatchObject({ stage: 'W_UK_T', culprit: 'mqa' });
    // A looser activation default does not loosen the weights; a stage override does.
    expect(compareCase(caseTrace(diffs), { default: 1e-3 }).firstDivergence?.stage).toBe('W_UK_T');
    expect(compareCase(caseTrace(diffs), { stages: { W_UK_T: 1e-5 } }).verdict).toBe('agree');
  });
});
