import type * as tfc from '@tensorflow/tfjs-core';
import type { Captured, StageRecord } from '../../core/probes/recorder';
import type { PathName, StageName } from '../../core/probes/stages';
import { STAGES } from '../../core/probes/stages';
import type { PairDiff, Where } from '../run/diff';
import { diffCaptured } from '../run/diff';
import type { CaseTrace, PieceInfo } from '../run/trace';
import type { Culprit, Expectation } from '../scenario/scenario';
import type { Rel } from '../../test-utils/traces';
import { at, caseTrace, ONE_SHOT_STAGES, pairDiff, pathTrace, piece, PIECE0, stagePairs, stageRecord, stats } from '../../test-utils/traces';
import type { CaseComparison, CheckResult, PairVerdict, Verdict } from './compare';
import { compareCase, culpritOf, pairVerdict } from './compare';
import { checkExpectation } from './expect';
import type { ToleranceSpec } from './tolerance';
import { DEFAULT_REL, toleranceFor, WEIGHT_REL } from './tolerance';

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
  return [
    ...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)),
    ...Object.values(replacements).flat(),
  ];
}

/** The trace with one path's record at `w` changed (added if the path lacks it). */
function patchRecord(trace: CaseTrace, path: PathName, w: Where, patch: Partial<Omit<StageRecord, keyof Where>>): CaseTrace {
  const t = trace.paths[path] ?? { path, precision: path === 'reference' ? 'float64' : 'float32', stages: [], pieces: [] };
  const same = (r: StageRecord) => r.step === w.step && r.request === w.request && r.stage === w.stage && r.chunk === w.chunk;
  const old = t.stages.find(same);
  const stages = old ? t.stages.map((r) => (same(r) ? { ...r, ...patch } : r)) : [...t.stages, stageRecord(w, 10, patch)];
  return { ...trace, paths: { ...trace.paths, [path]: { ...t, stages } } };
}

const label = (s: Where) => `${s.step}/${s.request}/${s.stage}${s.chunk === undefined ? '' : `[${s.chunk}]`}`;

describe('pairVerdict', () => {
  it.each<[string, Partial<PairDiff>, number | null, Verdict]>([
    ['under tolerance', {}, OK, 'ok'],
    ['exactly at tolerance', {}, TOL, 'ok'],
    ['over tolerance', {}, BAD, 'out-of-tolerance'],
    ['not measured (relErr null)', {}, null, 'ok'],
    ['NaN in a only', { nan: [3, 0] }, OK, 'nan-introduced'],
    ['NaN in b only', { nan: [0, 1] }, OK, 'nan-introduced'],
    ['NaN in b only, also over tolerance', { nan: [0, 1] }, BAD, 'nan-introduced'],
    ['NaN on both sides, values agree', { nan: [2, 2] }, OK, 'nan-introduced'],
    ['NaN on both sides, values differ', { nan: [2, 2] }, BAD, 'nan-introduced'],
    ['an unmatched infinity (relErr Infinity)', { infMismatch: 1 }, Infinity, 'out-of-tolerance'],
    ['NaN beats an unmatched infinity', { infMismatch: 2, nan: [1, 0] }, Infinity, 'nan-introduced'],
    ['shape mismatch', { shapeMatch: false }, null, 'shape-mismatch'],
    ['shape mismatch beats NaN', { shapeMatch: false, nan: [1, 0] }, null, 'shape-mismatch'],
  ])('%s → %s', (_what, extra, relErr, want) => {
    expect(pairVerdict(pairDiff('logits', 'mha', 'mqa', relErr, extra), TOL)).toBe(want);
  });
});

describe('culpritOf', () => {
  const pv = (a: PathName, b: PathName, verdict: Verdict): PairVerdict => ({ a, b, verdict, relErr: verdict === 'ok' ? OK : BAD, normRatio: 1 });
  const oot = 'out-of-tolerance';

  it.each<[string, PairVerdict[], Culprit]>([
    ['mqa off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', oot)], 'mqa'],
    ['mha off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')], 'mha'],
    ['both off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', oot)], 'both'],
    ['engines agree, both off the reference', [pv('mha', 'mqa', 'ok'), pv('mha', 'reference', oot), pv('mqa', 'reference', oot)], 'shared'],
    ['engines differ, both on the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', 'ok')], 'unknown'],
    ['no reference', [pv('mha', 'mqa', oot)], 'unknown'],
    ['one-sided mqa', [pv('mqa', 'reference', oot)], 'mqa'],
    ['one-sided mha', [pv('mha', 'reference', 'nan-introduced')], 'mha'],
    ['one-sided, nothing failing', [pv('mqa', 'reference', 'ok')], 'unknown'],
    // The reference outranks the majority: mha and cold agree with each other, only mqa is on the reference.
    ['cold and mha off the reference, mqa on it', [pv('mha', 'mqa', oot), pv('mha', 'cold', 'ok'), pv('mqa', 'cold', oot),
      pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok'), pv('cold', 'reference', oot)], 'mha'],
    ['only cold off the reference', [pv('mha', 'mqa', 'ok'), pv('mha', 'cold', oot), pv('mqa', 'cold', oot),
      pv('mha', 'reference', 'ok'), pv('mqa', 'reference', 'ok'), pv('cold', 'reference', oot)], 'cold'],
    ['mha-only stage: cold off the reference', [pv('mha', 'cold', oot), pv('mha', 'reference', 'ok'), pv('cold', 'reference', oot)], 'cold'],
  ])('with a reference: %s → %s', (_what, pairs, want) => {
    expect(culpritOf(pairs, [], [])).toBe(want);
  });

  // Without the reference, three fp32 paths outvote one.
  it.each<[string, [Verdict, Verdict, Verdict], Culprit]>([
    ['mha the odd one out', [oot, oot, 'ok'], 'mha'],
    ['mqa the odd one out', [oot, 'ok', oot], 'mqa'],
    ['cold the odd one out', ['ok', oot, oot], 'cold'],
    ['all three disagree', [oot, oot, oot], 'unknown'],
    ['two pairs agree, one does not (no single odd one)', ['ok', 'ok', oot], 'unknown'],
  ])('majority of three, no reference: %s → %s', (_what, [mhaMqa, mhaCold, mqaCold], want) => {
    expect(culpritOf([pv('mha', 'mqa', mhaMqa), pv('mha', 'cold', mhaCold), pv('mqa', 'cold', mqaCold)], [], [])).toBe(want);
  });

  it.each<[[number, number], Culprit]>([
    [[4, 0], 'mha'],
    [[0, 4], 'mqa'],
    [[4, 4], 'both'],
  ])('NaN without a reference: nan %p → %s', (nan, want) => {
    const d = pairDiff('lse', 'mha', 'mqa', OK, { nan });
    expect(culpritOf([pv('mha', 'mqa', 'nan-introduced')], [], [d])).toBe(want);
  });

  const check = (path: PathName, violations: number): CheckResult => ({ path, name: 'lse_bounds', violations });

  it.each<[string, CheckResult[], PairVerdict[], Culprit]>([
    ['mqa breaks an invariant though the reference blames mha', [check('mqa', 3)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')], 'mqa'],
    ['mha breaks one, no pair fails', [check('mha', 1), check('mqa', 0)], [pv('mha', 'mqa', 'ok')], 'mha'],
    ['cold breaks one', [check('cold', 2), check('mha', 0)], [pv('mha', 'cold', 'ok')], 'cold'],
    ['mha and mqa both break one', [check('mha', 1), check('mqa', 1)], [], 'both'],
    ["the reference's own violations are not held against anyone", [check('reference', 5)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', oot)], 'mqa'],
    ['checks with no violations change nothing', [check('mha', 0), check('mqa', 0)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')], 'mha'],
  ])('invariant checks first: %s', (_what, checks, pairs, want) => {
    expect(culpritOf(pairs, checks, [])).toBe(want);
  });
});

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
    expect(logits.pairs.map((p) => [p.a, p.b])).toEqual([['mha', 'mqa'], ['mha', 'reference'], ['mqa', 'reference']]);
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
    expect(lse.pairs.map((p) => [p.a, p.b])).toEqual([['mha', 'mqa'], ['mha', 'cold'], ['mqa', 'cold']]);
    expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'out-of-tolerance', culprit });
    // The reported measure is still the engine pair's, agreeing or not.
    expect(c.firstDivergence!.relErr).toBe(rel.engine);
  });

  it('cold ran beside the reference: cold alone off the reference → culprit cold', () => {
    const diffs = withStages({ attn_out: stagePairs('attn_out', { engine: OK, mha: OK, mqa: OK, mhaCold: BAD, mqaCold: BAD, cold: BAD }, { cold: true }) });
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

  describe("NaN in a path's own values, where no pair compares it", () => {
    // With the reference off, the context stages (mha, reference) and split_lse (mqa, reference) have no pair.
    const pieces = [piece(0, 'a'), piece(1, 'a', { start: 3, chunks: 2 })];
    const clean = () => caseTrace([...cleanDiffs(false, { step: 0, request: 'a' }), ...cleanDiffs(false, { step: 1, request: 'a' })], { pieces });
    const ctx = at('context_output', { step: 1, request: 'a', chunk: 1 });
    const split = at('split_lse', { step: 1, request: 'a' });

    it.each<[string, Where, PathName]>([
      ['context_output[1] in mha', ctx, 'mha'],
      ['split_lse in mqa', split, 'mqa'],
    ])('%s → nan-introduced, culprit that path', (_what, w, path) => {
      const c = compareCase(patchRecord(clean(), path, w, { stats: stats(3, { nanCount: 4 }) }), {});
      expect(c.stages.find((s) => label(s) === label(w))).toMatchObject({ verdict: 'nan-introduced', culprit: path, pairs: [] });
      expect(c.firstDivergence).toEqual({ ...w, verdict: 'nan-introduced', culprit: path, relErr: null, normRatio: null });
    });

    it('the NaN record is the first divergence though later records of the piece compare NaN pairs too', () => {
      const trace = patchRecord(clean(), 'mha', ctx, { stats: stats(3, { nanCount: 4 }) });
      const lse = trace.diffs.find((d) => d.step === 1 && d.stage === 'lse' && d.a === 'mha' && d.b === 'mqa')!;
      lse.nan = [4, 0];
      const c = compareCase({ ...trace, paths: patchRecord(trace, 'mha', at('lse', { step: 1, request: 'a' }), { stats: stats(3, { nanCount: 4 }) }).paths }, {});
      expect(c.stages.filter((s) => s.verdict !== 'ok').map(label)).toEqual(['1/a/context_output[1]', '1/a/lse']);
      expect(c.firstDivergence).toMatchObject({ ...ctx, verdict: 'nan-introduced', culprit: 'mha' });
      expect(c.stages.find((s) => s.stage === 'lse' && s.step === 1)).toMatchObject({ verdict: 'nan-introduced', culprit: 'mha' });
    });

    it('no NaN there → ok, though nothing is compared', () => {
      const c = compareCase(patchRecord(clean(), 'mha', ctx, {}), {});
      expect(c.stages.find((s) => label(s) === label(ctx))).toMatchObject({ verdict: 'ok', culprit: null, pairs: [] });
      expect(c.verdict).toBe('agree');
    });

    it("the reference's own NaN is not a finding", () => {
      expect(compareCase(patchRecord(clean(), 'reference', ctx, { stats: stats(3, { nanCount: 4 }) }), {}).verdict).toBe('agree');
    });
  });

  describe('invariant checks', () => {
    const lse = at('lse');
    const withCheck = (trace: CaseTrace, path: PathName, violations: number) =>
      patchRecord(trace, path, lse, { checks: [...(trace.paths[path]?.stages.find((r) => r.stage === 'lse')?.checks ?? []), { name: 'lse_bounds', violations }] });

    it.each<[string, PathName, Rel, Culprit]>([
      ['mha, every pair in tolerance', 'mha', {}, 'mha'],
      ['mqa, every pair in tolerance', 'mqa', {}, 'mqa'],
      ['mqa, though the reference blames mha', 'mqa', { engine: BAD, mha: BAD, mqa: OK }, 'mqa'],
    ])('a violation in %s → invariant-violated, culprit the violating path', (_what, path, rel, culprit) => {
      const trace = withCheck(caseTrace(withStages({ lse: stagePairs('lse', { engine: OK, mha: OK, mqa: OK, ...rel }) })), path, 3);
      const c = compareCase(trace, {});
      const v = c.stages.find((s) => s.stage === 'lse')!;
      expect(v).toMatchObject({ verdict: 'invariant-violated', culprit });
      expect(v.checks).toEqual([{ path, name: 'lse_bounds', violations: 3 }]);
      expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'invariant-violated', culprit });
    });

    it('checks with no violations, in every path, leave the record ok', () => {
      let trace = caseTrace(cleanDiffs());
      for (const p of ['mha', 'mqa', 'reference'] as const) trace = withCheck(trace, p, 0);
      const c = compareCase(trace, {});
      expect(c.verdict).toBe('agree');
      expect(c.stages.find((s) => s.stage === 'lse')!.checks.map((k) => k.path)).toEqual(['mha', 'mqa', 'reference']);
    });

    it("the reference's own violations do not make a divergence", () => {
      expect(compareCase(withCheck(caseTrace(cleanDiffs()), 'reference', 2), {}).verdict).toBe('agree');
    });

    it('NaN outranks a violation at the same record', () => {
      const trace = withCheck(caseTrace(withStages({ lse: [pairDiff('lse', 'mha', 'mqa', OK, { nan: [0, 2] }), ...stagePairs('lse', {}).slice(1)] })), 'mha', 1);
      expect(compareCase(trace, {}).firstDivergence).toMatchObject({ stage: 'lse', verdict: 'nan-introduced' });
    });
  });

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
      expect(c.firstDivergence).toMatchObject({ stage: 'chunk_lse', chunk: 0, verdict: 'out-of-tolerance', culprit: 'mha', relErr: Infinity });
    });

    it('an infinite engine-pair error is not the worst engine error', () => {
      const c = compareCase(caseTrace([pairDiff('lse', 'mha', 'mqa', Infinity, { infMismatch: 1 }), pairDiff('q', 'mha', 'mqa', 3e-7)]), {});
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
    expect(c.stages.find((s) => s.stage === 'attn_out')!.pairs.map((p) => p.verdict)).toEqual(['shape-mismatch', 'out-of-tolerance', 'nan-introduced']);
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
    expect(c.firstDivergence).toEqual({ step: 0, request: 'prompt', stage, verdict: 'out-of-tolerance', culprit: path, relErr: BAD, normRatio: 1.5 });
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
      ['q_pe', 'mha'], ['logits', 'mqa'], ['lse', 'mha'], ['o_proj_out', 'mqa'],
    ]);
  });

  it('stages are listed in pipeline order even from a shuffled trace', () => {
    const diffs = cleanDiffs();
    const shuffled = diffs.map((d, i) => ({ d, k: (i * 7919) % diffs.length })).sort((x, y) => x.k - y.k).map((x) => x.d);
    expect(compareCase(caseTrace(shuffled), {}).stages.map((s) => s.stage)).toEqual(ONE_SHOT_STAGES);
  });

  it('only recorded stages are judged', () => {
    const diffs = [...stagePairs('q', {}), ...stagePairs('lse', {})];
    expect(compareCase(caseTrace(diffs), {}).stages.map((s) => s.stage)).toEqual(['q', 'lse']);
  });

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
      const pair = (stage: StageName, chunk: number | undefined, rel: number) => pairDiff(stage, 'mha', 'reference', rel, { ...where, chunk });
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
        'suffix_lse', 'ctx_workspace[0]', 'chunk_lse[0]', 'context_lse[0]', 'ctx_workspace[1]', 'chunk_lse[1]', 'context_lse[1]', 'split_lse',
      ]);
      expect(c.firstDivergence).toMatchObject({ ...where, stage: 'context_lse', chunk: 0, culprit: 'mha' });
      expect(c.stages.filter((s) => s.verdict !== 'ok').map((s) => [s.stage, s.chunk])).toEqual([['context_lse', 0], ['ctx_workspace', 1]]);
    });

    it('the same stage in two pieces is judged once per piece', () => {
      const pieces = [piece(0, 'a'), piece(0, 'b')];
      const diffs = [
        ...stagePairs('lse', {}, { where: { step: 0, request: 'a' } }),
        ...stagePairs('lse', { engine: BAD, mqa: BAD }, { where: { step: 0, request: 'b' } }),
      ];
      const c = compareCase(caseTrace(diffs, { pieces }), {});
      expect(c.stages.map((s) => [s.request, s.verdict])).toEqual([['a', 'ok'], ['b', 'out-of-tolerance']]);
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

  describe('scalar mismatches', () => {
    type Scalars = Record<string, number | string | boolean>;
    /** A clean trace whose paths record these scalars for their piece(s). */
    const trace = (scalars: Partial<Record<PathName, Scalars>>, pieces: PieceInfo[] = [PIECE0], perPiece?: (p: PieceInfo, path: PathName) => Scalars) => {
      const t = caseTrace(pieces.flatMap((p) => cleanDiffs(true, p)), { pieces });
      const paths = Object.fromEntries(Object.entries(scalars).map(([p, s]) => {
        const path = p as PathName;
        const base = t.paths[path] ?? pathTrace(path, {});
        return [path, { ...base, pieces: pieces.filter((x) => x.kind !== 'cached').map((x) => ({ step: x.step, request: x.request, scalars: perPiece?.(x, path) ?? s })) }];
      }));
      return { ...t, paths: { ...t.paths, ...paths } };
    };

    it('softmax_scale differing between paths is reported with every value, and its piece', () => {
      const c = compareCase(trace({
        mha: { softmax_scale: 0.0625, lse_base: 'e' },
        mqa: { softmax_scale: 1 / 24, lse_base: 'e' },
        reference: { softmax_scale: 0.0625, lse_base: 'e' },
      }), {});
      expect(c.scalarMismatches).toEqual([{ step: 0, request: 'prompt', name: 'softmax_scale', values: { mha: 0.0625, mqa: 1 / 24, reference: 0.0625 } }]);
    });

    it('equal floats (up to rounding) are not a mismatch', () => {
      const c = compareCase(trace({ mha: { softmax_scale: 0.1 + 0.2 }, mqa: { softmax_scale: 0.3 }, reference: { softmax_scale: 0.3 } }), {});
      expect(c.scalarMismatches).toEqual([]);
    });

    it.each([
      ['rope_style', 'gptj', 'neox'],
      ['lse_base', 'e', '2'],
      ['has_context', false, true],
      ['num_tokens', 5, 6],
      ['num_context_tokens', 0, 12],
      ['causal', true, false],
    ] as const)('%s differing is reported', (name, x, y) => {
      const c = compareCase(trace({ mha: { [name]: x }, mqa: { [name]: y } }), {});
      expect(c.scalarMismatches).toEqual([{ step: 0, request: 'prompt', name, values: { mha: x, mqa: y } }]);
    });

    it('scalars outside the compared set, or recorded by one path only, are not mismatches', () => {
      const c = compareCase(trace({
        mha: { head_start: 0, route: 'mha', empty_lse: '-inf', softmax_scale: 0.2 },
        mqa: { head_start: 2, route: 'mqa', kv_splits: 4 },
      }), {});
      expect(c.scalarMismatches).toEqual([]);
    });

    it('scalars do not change the verdict', () => {
      const c = compareCase(trace({ mha: { softmax_scale: 1 }, mqa: { softmax_scale: 2 } }), {});
      expect(c.verdict).toBe('agree');
      expect(c.scalarMismatches).toHaveLength(1);
    });

    it('are reported per piece: only the piece whose scalars differ, cache fills skipped', () => {
      const pieces = [piece(0, 'a'), piece(0, 'b', { kind: 'cached', count: 7 }), piece(1, 'a', { start: 3, chunks: 1 }), piece(1, 'b', { start: 7, chunks: 1 })];
      const scalars = (p: PieceInfo, path: PathName): Scalars => ({ lse_base: path === 'mha' && p.step === 1 && p.request === 'b' ? '2' : 'e', num_tokens: 3 });
      const c = compareCase(trace({ mha: {}, mqa: {}, reference: {} }, pieces, scalars), {});
      expect(c.scalarMismatches).toEqual([{ step: 1, request: 'b', name: 'lse_base', values: { mha: '2', mqa: 'e', reference: 'e' } }]);
    });
  });

  describe('worstEngine', () => {
    it('is the largest mha↔mqa relErr over activation stages, with its record', () => {
      const diffs = withStages({
        q: stagePairs('q', { engine: 2e-7 }),
        logits: stagePairs('logits', { engine: 9e-7 }),
        o_proj_out: stagePairs('o_proj_out', { engine: 5e-7 }),
        // A weight stage's engine pair is never the worst, however large.
        W_UV: [pairDiff('W_UV', 'mha', 'mqa', 1e-3)],
      });
      const c = compareCase(caseTrace(diffs), { stages: { W_UV: 1 } });
      expect(c.verdict).toBe('agree');
      expect(c.worstEngine).toEqual({ step: 0, request: 'prompt', stage: 'logits', relErr: 9e-7 });
    });

    it('counts failing stages too', () => {
      const c = compareCase(caseTrace(withStages({ lse: stagePairs('lse', { engine: BAD, mha: BAD }) })), {});
      expect(c.worstEngine).toEqual({ ...at('lse'), relErr: BAD });
    });

    it('ignores unmeasured pairs and one-sided stages', () => {
      const diffs = [
        pairDiff('logits', 'mha', 'mqa', null),
        pairDiff('ql_nope', 'mqa', 'reference', 1e-6),
        pairDiff('attn_out', 'mha', 'mqa', 3e-8),
      ];
      expect(compareCase(caseTrace(diffs), {}).worstEngine).toEqual({ ...at('attn_out'), relErr: 3e-8 });
    });

    it('is searched over every piece', () => {
      const pieces = [piece(0, 'a'), piece(1, 'a', { kind: 'decode', count: 1, start: 3 })];
      const diffs = [
        ...stagePairs('lse', { engine: 4e-7 }, { where: { step: 0, request: 'a' } }),
        ...stagePairs('lse', { engine: 8e-7 }, { where: { step: 1, request: 'a' } }),
      ];
      expect(compareCase(caseTrace(diffs, { pieces }), {}).worstEngine).toEqual({ step: 1, request: 'a', stage: 'lse', relErr: 8e-7 });
    });

    it('is null without an engine pair', () => {
      expect(compareCase(caseTrace([pairDiff('ql_nope', 'mqa', 'reference', OK)]), {}).worstEngine).toBeNull();
    });
  });

  it('does not modify the trace', () => {
    const trace = caseTrace(withStages({ logits: stagePairs('logits', { engine: BAD, mqa: BAD }) }));
    const before = JSON.stringify(trace);
    compareCase(trace, { default: 1e-3 });
    expect(JSON.stringify(trace)).toBe(before);
  });
});

describe('toleranceFor', () => {
  it.each<[StageName, ToleranceSpec, number]>([
    ['logits', {}, DEFAULT_REL.float32],
    ['logits', { default: 1e-3 }, 1e-3],
    ['logits', { default: 1e-3, stages: { logits: 0.5 } }, 0.5],
    ['logits', { stages: { logits: 0 } }, 0],
    ['lse', { stages: { logits: 0.5 } }, DEFAULT_REL.float32],
    ['context_lse', { default: 1e-4 }, 1e-4],
    ['W_UK_T', {}, WEIGHT_REL],
    ['W_UV', { default: 1 }, WEIGHT_REL],
    ['W_UV', { stages: { W_UV: 1e-4 } }, 1e-4],
  ])('%s with %p → %p', (stage, spec, want) => {
    expect(toleranceFor(stage, spec)).toBe(want);
  });
});

describe('checkExpectation', () => {
  const agree = compareCase(caseTrace(cleanDiffs()), {});
  const divergeLogitsMqa = compareCase(caseTrace(withStages({ logits: stagePairs('logits', { engine: BAD, mqa: BAD }) })), {});
  /** Diverges first at step 3, request b, context_output chunk 1, culprit mha. */
  const divergeLater = compareCase(caseTrace([
    ...stagePairs('lse', {}, { where: { step: 0, request: 'a' } }),
    pairDiff('context_output', 'mha', 'reference', BAD, { step: 3, request: 'b', chunk: 1 }),
  ], { pieces: [piece(0, 'a'), piece(3, 'b', { start: 9, chunks: 2 })] }), {});

  it('the later divergence is where the builder puts it', () => {
    expect(divergeLater.firstDivergence).toMatchObject({ step: 3, request: 'b', stage: 'context_output', chunk: 1, culprit: 'mha' });
  });

  it.each<[string, Expectation, CaseComparison]>([
    ['agree as expected', { outcome: 'agree' }, agree],
    ['diverge as expected', { outcome: 'diverge' }, divergeLogitsMqa],
    ['diverge at the expected stage', { outcome: 'diverge', first_divergence: 'logits' }, divergeLogitsMqa],
    ['diverge with the expected culprit', { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' }, divergeLogitsMqa],
    ['diverge at the expected step and request', { outcome: 'diverge', first_divergence: 'context_output', culprit: 'mha', step: 3, request: 'b' }, divergeLater],
    ['step 0 is checked, not skipped as falsy', { outcome: 'diverge', step: 0, request: 'prompt' }, divergeLogitsMqa],
  ])('%s → met', (_what, expectation, comparison) => {
    expect(checkExpectation(expectation, comparison)).toEqual({ met: true, misses: [] });
  });

  // Each miss names what was found and what was expected: check those values, not the wording.
  it.each<[string, Expectation, CaseComparison, string[][]]>([
    ['outcome: agree, but diverged', { outcome: 'agree' }, divergeLogitsMqa, [['diverge', 'agree']]],
    ['outcome: diverge, but agreed', { outcome: 'diverge' }, agree, [['agree', 'diverge']]],
    ['wrong first divergence', { outcome: 'diverge', first_divergence: 'q_pe' }, divergeLogitsMqa, [['logits', 'q_pe']]],
    ['wrong culprit', { outcome: 'diverge', culprit: 'mha' }, divergeLogitsMqa, [['mqa', 'mha']]],
    ['wrong stage and culprit', { outcome: 'diverge', first_divergence: 'lse', culprit: 'shared' }, divergeLogitsMqa, [['logits', 'lse'], ['mqa', 'shared']]],
    ['expected a divergence that never came', { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' }, agree,
      [['agree', 'diverge'], ['logits'], ['mqa']]],
    ['wrong step', { outcome: 'diverge', step: 2 }, divergeLater, [['3', '2']]],
    ['step 0 expected, found later', { outcome: 'diverge', step: 0 }, divergeLater, [['3', '0']]],
    ['wrong request', { outcome: 'diverge', request: 'a' }, divergeLater, [['b', 'a']]],
    ['wrong step and request', { outcome: 'diverge', first_divergence: 'context_output', step: 17, request: 'chat' }, divergeLater, [['3', '17'], ['b', 'chat']]],
    ['step and request of a divergence that never came', { outcome: 'diverge', step: 3, request: 'b' }, agree,
      [['agree', 'diverge'], ['none', '3'], ['none', 'b']]],
  ])('%s → not met', (_what, expectation, comparison, mentions) => {
    const r = checkExpectation(expectation, comparison);
    expect(r.met).toBe(false);
    expect(r.misses).toHaveLength(mentions.length);
    r.misses.forEach((m, i) => {
      for (const word of mentions[i]!) expect(m).toContain(word);
    });
  });
});
