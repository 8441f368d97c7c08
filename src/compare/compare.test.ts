import type { PathName, StageName } from '../probes/stages';
import { STAGE_NAMES, STAGES } from '../probes/stages';
import type { PairDiff } from '../run/diff';
import type { Culprit, Expectation } from '../scenario/scenario';
import { caseTrace, pairDiff, pathTrace, stagePairs } from '../test-utils/traces';
import type { CaseComparison, PairVerdict, Verdict } from './compare';
import { compareCase, culpritOf, pairVerdict } from './compare';
import { checkExpectation } from './expect';
import type { ToleranceSpec } from './tolerance';
import { DEFAULT_REL, toleranceFor, WEIGHT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;
const TOL = DEFAULT_REL.float32;

/** Every stage recorded and in agreement (weights exactly), with the reference unless told otherwise. */
function cleanDiffs(withReference = true): PairDiff[] {
  return STAGE_NAMES.flatMap((s) => {
    const rel = STAGES[s].kind === 'weight' ? WEIGHT_REL : OK;
    return stagePairs(s, { engine: rel, mha: rel, mqa: rel }, withReference);
  });
}

/** `cleanDiffs` with the pairs of some stages replaced. */
function withStages(replacements: Partial<Record<StageName, PairDiff[]>>, withReference = true): PairDiff[] {
  return [
    ...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)),
    ...Object.values(replacements).flat(),
  ];
}

describe('pairVerdict', () => {
  it.each<[string, Partial<PairDiff>, number | null, Verdict]>([
    ['under tolerance', {}, OK, 'ok'],
    ['exactly at tolerance', {}, TOL, 'ok'],
    ['over tolerance', {}, BAD, 'out-of-tolerance'],
    ['not measured (relErr null)', {}, null, 'ok'],
    ['NaN in a only', { nonFinite: [3, 0] }, OK, 'nan-introduced'],
    ['NaN in b only', { nonFinite: [0, 1] }, OK, 'nan-introduced'],
    ['NaN in b only, also over tolerance', { nonFinite: [0, 1] }, BAD, 'nan-introduced'],
    ['NaN on both sides, values agree', { nonFinite: [2, 2] }, OK, 'nan-introduced'],
    ['NaN on both sides, values differ', { nonFinite: [2, 2] }, BAD, 'nan-introduced'],
    ['shape mismatch', { shapeMatch: false }, null, 'shape-mismatch'],
    ['shape mismatch beats NaN', { shapeMatch: false, nonFinite: [1, 0] }, null, 'shape-mismatch'],
  ])('%s → %s', (_what, extra, relErr, want) => {
    expect(pairVerdict(pairDiff('logits', 'mha', 'mqa', relErr, extra), TOL)).toBe(want);
  });
});

describe('culpritOf', () => {
  const pv = (a: PathName, b: PathName, verdict: Verdict): PairVerdict => ({ a, b, verdict, relErr: verdict === 'ok' ? OK : BAD, normRatio: 1 });

  it.each<[string, PairVerdict[], Culprit]>([
    ['mqa off the reference', [pv('mha', 'mqa', 'out-of-tolerance'), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', 'out-of-tolerance')], 'mqa'],
    ['mha off the reference', [pv('mha', 'mqa', 'out-of-tolerance'), pv('mha', 'reference', 'out-of-tolerance'), pv('mqa', 'reference', 'ok')], 'mha'],
    ['both off the reference', [pv('mha', 'mqa', 'out-of-tolerance'), pv('mha', 'reference', 'out-of-tolerance'), pv('mqa', 'reference', 'out-of-tolerance')], 'both'],
    ['engines agree, both off the reference', [pv('mha', 'mqa', 'ok'), pv('mha', 'reference', 'out-of-tolerance'), pv('mqa', 'reference', 'out-of-tolerance')], 'shared'],
    ['engines differ, both on the reference', [pv('mha', 'mqa', 'out-of-tolerance'), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', 'ok')], 'unknown'],
    ['no reference', [pv('mha', 'mqa', 'out-of-tolerance')], 'unknown'],
    ['one-sided mqa', [pv('mqa', 'reference', 'out-of-tolerance')], 'mqa'],
    ['one-sided mha', [pv('mha', 'reference', 'nan-introduced')], 'mha'],
    ['one-sided, nothing failing', [pv('mqa', 'reference', 'ok')], 'unknown'],
  ])('%s → %s', (_what, pairs, want) => {
    expect(culpritOf(pairs, [])).toBe(want);
  });

  it.each<[[number, number], Culprit]>([
    [[4, 0], 'mha'],
    [[0, 4], 'mqa'],
  ])('NaN without a reference: nonFinite %p → %s', (nonFinite, want) => {
    const d = pairDiff('lse', 'mha', 'mqa', OK, { nonFinite });
    expect(culpritOf([pv('mha', 'mqa', 'nan-introduced')], [d])).toBe(want);
  });
});

describe('compareCase', () => {
  it('all pairs under tolerance → agree, no divergence', () => {
    const c = compareCase(caseTrace(cleanDiffs()), {});
    expect(c.verdict).toBe('agree');
    expect(c.firstDivergence).toBeNull();
    expect(c.stages.map((s) => s.stage)).toEqual(STAGE_NAMES);
    for (const s of c.stages) {
      expect(s.verdict).toBe('ok');
      expect(s.culprit).toBeNull();
    }
  });

  it('an empty trace agrees with no stages', () => {
    const c = compareCase(caseTrace([]), {});
    expect(c).toEqual({ verdict: 'agree', firstDivergence: null, stages: [], worstEngine: null, scalarMismatches: [] });
  });

  it.each<[string, { engine: number; mha: number; mqa: number }, Culprit]>([
    ['mqa off, mha on the reference', { engine: BAD, mha: OK, mqa: BAD }, 'mqa'],
    ['mha off, mqa on the reference', { engine: BAD, mha: BAD, mqa: OK }, 'mha'],
    ['both off the reference', { engine: BAD, mha: BAD, mqa: BAD * 2 }, 'both'],
    ['engines agree, both off the reference', { engine: OK, mha: BAD, mqa: BAD }, 'shared'],
    ['engines differ, both on the reference', { engine: BAD, mha: OK, mqa: OK }, 'unknown'],
  ])('logits: %s → culprit %s', (_what, rel, culprit) => {
    const c = compareCase(caseTrace(withStages({ logits: stagePairs('logits', rel) })), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'logits', verdict: 'out-of-tolerance', culprit });
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

  it.each<[[number, number], Culprit]>([
    [[7, 0], 'mha'],
    [[0, 7], 'mqa'],
    [[7, 7], 'both'],
  ])('no reference: NaN (nonFinite %p) → nan-introduced, culprit %s', (nonFinite, culprit) => {
    const diffs = withStages({ lse: [pairDiff('lse', 'mha', 'mqa', OK, { nonFinite })] }, false);
    const c = compareCase(caseTrace(diffs), {});
    expect(c.verdict).toBe('diverge');
    expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'nan-introduced', culprit });
  });

  it('with a reference: NaN in mqa → nan-introduced, culprit mqa', () => {
    const diffs = withStages({
      attn_probs: [
        pairDiff('attn_probs', 'mha', 'mqa', OK, { nonFinite: [0, 5] }),
        pairDiff('attn_probs', 'mha', 'reference', OK),
        pairDiff('attn_probs', 'mqa', 'reference', OK, { nonFinite: [5, 0] }),
      ],
    });
    const c = compareCase(caseTrace(diffs), {});
    expect(c.firstDivergence).toMatchObject({ stage: 'attn_probs', verdict: 'nan-introduced', culprit: 'mqa' });
  });

  it('shape mismatch → shape-mismatch, and it outranks other verdicts at the stage', () => {
    const diffs = withStages({
      attn_out: [
        pairDiff('attn_out', 'mha', 'mqa', null, { shapeMatch: false }),
        pairDiff('attn_out', 'mha', 'reference', BAD),
        pairDiff('attn_out', 'mqa', 'reference', OK, { nonFinite: [1, 0] }),
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
    ['kv_nope', 'mha'],
    ['k', 'mha'],
  ])('one-sided stage %s failing against the reference → culprit %s', (stage, path) => {
    expect(STAGES[stage].compare).toBe('one-sided');
    const c = compareCase(caseTrace(withStages({ [stage]: [pairDiff(stage, path, 'reference', BAD, { normRatio: 1.5 })] })), {});
    expect(c.firstDivergence).toEqual({ stage, verdict: 'out-of-tolerance', culprit: path, relErr: BAD, normRatio: 1.5 });
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
    expect(c.stages.map((s) => s.stage)).toEqual(STAGE_NAMES);
    expect(c.stages.filter((s) => s.verdict !== 'ok').map((s) => [s.stage, s.culprit])).toEqual([
      ['q_pe', 'mha'], ['logits', 'mqa'], ['lse', 'mha'], ['o_proj_out', 'mqa'],
    ]);
  });

  it('stages are listed in pipeline order even from a shuffled trace', () => {
    const diffs = cleanDiffs();
    const shuffled = diffs.map((d, i) => ({ d, k: (i * 7919) % diffs.length })).sort((x, y) => x.k - y.k).map((x) => x.d);
    expect(compareCase(caseTrace(shuffled), {}).stages.map((s) => s.stage)).toEqual(STAGE_NAMES);
  });

  it('only recorded stages are judged', () => {
    const diffs = [...stagePairs('q', {}), ...stagePairs('lse', {})];
    expect(compareCase(caseTrace(diffs), {}).stages.map((s) => s.stage)).toEqual(['q', 'lse']);
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
    const trace = (scalars: Partial<Record<PathName, Record<string, number | string | boolean>>>) =>
      caseTrace(cleanDiffs(), {
        paths: Object.fromEntries(Object.entries(scalars).map(([p, s]) => [p, pathTrace(p as PathName, {}, s)])),
      });

    it('softmax_scale differing between paths is reported with every value', () => {
      const c = compareCase(trace({
        mha: { softmax_scale: 0.0625, lse_base: 'e' },
        mqa: { softmax_scale: 1 / 24, lse_base: 'e' },
        reference: { softmax_scale: 0.0625, lse_base: 'e' },
      }), {});
      expect(c.scalarMismatches).toEqual([{ name: 'softmax_scale', values: { mha: 0.0625, mqa: 1 / 24, reference: 0.0625 } }]);
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
    ] as const)('%s differing is reported', (name, x, y) => {
      const c = compareCase(trace({ mha: { [name]: x }, mqa: { [name]: y } }), {});
      expect(c.scalarMismatches).toEqual([{ name, values: { mha: x, mqa: y } }]);
    });

    it('scalars outside the compared set, or recorded by one path only, are not mismatches', () => {
      const c = compareCase(trace({ mha: { head_start: 0, num_mha_tokens: 3, softmax_scale: 0.2 }, mqa: { head_start: 2, num_mqa_tokens: 0 } }), {});
      expect(c.scalarMismatches).toEqual([]);
    });

    it('scalars do not change the verdict', () => {
      const c = compareCase(trace({ mha: { softmax_scale: 1 }, mqa: { softmax_scale: 2 } }), {});
      expect(c.verdict).toBe('agree');
      expect(c.scalarMismatches).toHaveLength(1);
    });
  });

  describe('worstEngine', () => {
    it('is the largest mha↔mqa relErr over activation stages', () => {
      const diffs = withStages({
        q: stagePairs('q', { engine: 2e-7 }),
        logits: stagePairs('logits', { engine: 9e-7 }),
        o_proj_out: stagePairs('o_proj_out', { engine: 5e-7 }),
        // A weight stage's engine pair is never the worst, however large.
        W_UV: [pairDiff('W_UV', 'mha', 'mqa', 1e-3)],
      });
      const c = compareCase(caseTrace(diffs), { stages: { W_UV: 1 } });
      expect(c.verdict).toBe('agree');
      expect(c.worstEngine).toEqual({ stage: 'logits', relErr: 9e-7 });
    });

    it('counts failing stages too', () => {
      const c = compareCase(caseTrace(withStages({ lse: stagePairs('lse', { engine: BAD, mha: BAD }) })), {});
      expect(c.worstEngine).toEqual({ stage: 'lse', relErr: BAD });
    });

    it('ignores unmeasured pairs and one-sided stages', () => {
      const diffs = [
        pairDiff('logits', 'mha', 'mqa', null),
        pairDiff('ql_nope', 'mqa', 'reference', 1e-6),
        pairDiff('attn_out', 'mha', 'mqa', 3e-8),
      ];
      expect(compareCase(caseTrace(diffs), {}).worstEngine).toEqual({ stage: 'attn_out', relErr: 3e-8 });
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

  it.each<[string, Expectation, CaseComparison]>([
    ['agree as expected', { outcome: 'agree' }, agree],
    ['diverge as expected', { outcome: 'diverge' }, divergeLogitsMqa],
    ['diverge at the expected stage', { outcome: 'diverge', first_divergence: 'logits' }, divergeLogitsMqa],
    ['diverge with the expected culprit', { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' }, divergeLogitsMqa],
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
  ])('%s → not met', (_what, expectation, comparison, mentions) => {
    const r = checkExpectation(expectation, comparison);
    expect(r.met).toBe(false);
    expect(r.misses).toHaveLength(mentions.length);
    r.misses.forEach((m, i) => {
      for (const word of mentions[i]!) expect(m).toContain(word);
    });
  });
});
