import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { Culprit, Expectation } from '../scenario/scenario';
import { caseTrace, ONE_SHOT_STAGES, pairDiff, piece, stagePairs } from '../../test-utils/traces';
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
  return [...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)), ...Object.values(replacements).flat()];
}

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
  const pv = (a: PathName, b: PathName, verdict: Verdict): PairVerdict => ({
    a,
    b,
    verdict,
    relErr: verdict === 'ok' ? OK : BAD,
    normRatio: 1,
  });
  const oot = 'out-of-tolerance';

  it.each<[string, PairVerdict[], Culprit]>([
    ['mqa off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', oot)], 'mqa'],
    ['mha off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')], 'mha'],
    ['both off the reference', [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', oot)], 'both'],
    ['engines agree, both off the reference', [pv('mha', 'mqa', 'ok'), pv('mha', 'reference', oot), pv('mqa', 'reference', oot)], 'shared'],
    [
      'engines differ, both on the reference',
      [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', 'ok')],
      'unknown',
    ],
    ['no reference', [pv('mha', 'mqa', oot)], 'unknown'],
    ['one-sided mqa', [pv('mqa', 'reference', oot)], 'mqa'],
    ['one-sided mha', [pv('mha', 'reference', 'nan-introduced')], 'mha'],
    ['one-sided, nothing failing', [pv('mqa', 'reference', 'ok')], 'unknown'],
    // The reference outranks the majority: mha and cold agree with each other, only mqa is on the reference.
    [
      'cold and mha off the reference, mqa on it',
      [
        pv('mha', 'mqa', oot),
        pv('mha', 'cold', 'ok'),
        pv('mqa', 'cold', oot),
        pv('mha', 'reference', oot),
        pv('mqa', 'reference', 'ok'),
        pv('cold', 'reference', oot),
      ],
      'mha',
    ],
    [
      'only cold off the reference',
      [
        pv('mha', 'mqa', 'ok'),
        pv('mha', 'cold', oot),
        pv('mqa', 'cold', oot),
        pv('mha', 'reference', 'ok'),
        pv('mqa', 'reference', 'ok'),
        pv('cold', 'reference', oot),
      ],
      'cold',
    ],
    [
      'mha-only stage: cold off the reference',
      [pv('mha', 'cold', oot), pv('mha', 'reference', 'ok'), pv('cold', 'reference', oot)],
      'cold',
    ],
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
    [
      'mqa breaks an invariant though the reference blames mha',
      [check('mqa', 3)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')],
      'mqa',
    ],
    ['mha breaks one, no pair fails', [check('mha', 1), check('mqa', 0)], [pv('mha', 'mqa', 'ok')], 'mha'],
    ['cold breaks one', [check('cold', 2), check('mha', 0)], [pv('mha', 'cold', 'ok')], 'cold'],
    ['mha and mqa both break one', [check('mha', 1), check('mqa', 1)], [], 'both'],
    [
      "the reference's own violations are not held against anyone",
      [check('reference', 5)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', 'ok'), pv('mqa', 'reference', oot)],
      'mqa',
    ],
    [
      'checks with no violations change nothing',
      [check('mha', 0), check('mqa', 0)],
      [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok')],
      'mha',
    ],
  ])('invariant checks first: %s', (_what, checks, pairs, want) => {
    expect(culpritOf(pairs, checks, [])).toBe(want);
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
  const divergeLater = compareCase(
    caseTrace(
      [
        ...stagePairs('lse', {}, { where: { step: 0, request: 'a' } }),
        pairDiff('context_output', 'mha', 'reference', BAD, { step: 3, request: 'b', chunk: 1 }),
      ],
      { pieces: [piece(0, 'a'), piece(3, 'b', { start: 9, chunks: 2 })] },
    ),
    {},
  );

  it('the later divergence is where the builder puts it', () => {
    expect(divergeLater.firstDivergence).toMatchObject({ step: 3, request: 'b', stage: 'context_output', chunk: 1, culprit: 'mha' });
  });

  it.each<[string, Expectation, CaseComparison]>([
    ['agree as expected', { outcome: 'agree' }, agree],
    ['diverge as expected', { outcome: 'diverge' }, divergeLogitsMqa],
    ['diverge at the expected stage', { outcome: 'diverge', first_divergence: 'logits' }, divergeLogitsMqa],
    ['diverge with the expected culprit', { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' }, divergeLogitsMqa],
    [
      'diverge at the expected step and request',
      { outcome: 'diverge', first_divergence: 'context_output', culprit: 'mha', step: 3, request: 'b' },
      divergeLater,
    ],
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
    [
      'wrong stage and culprit',
      { outcome: 'diverge', first_divergence: 'lse', culprit: 'shared' },
      divergeLogitsMqa,
      [
        ['logits', 'lse'],
        ['mqa', 'shared'],
      ],
    ],
    [
      'expected a divergence that never came',
      { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' },
      agree,
      [['agree', 'diverge'], ['logits'], ['mqa']],
    ],
    ['wrong step', { outcome: 'diverge', step: 2 }, divergeLater, [['3', '2']]],
    ['step 0 expected, found later', { outcome: 'diverge', step: 0 }, divergeLater, [['3', '0']]],
    ['wrong request', { outcome: 'diverge', request: 'a' }, divergeLater, [['b', 'a']]],
    [
      'wrong step and request',
      { outcome: 'diverge', first_divergence: 'context_output', step: 17, request: 'chat' },
      divergeLater,
      [
        ['3', '17'],
        ['b', 'chat'],
      ],
    ],
    [
      'step and request of a divergence that never came',
      { outcome: 'diverge', step: 3, request: 'b' },
      agree,
      [
        ['agree', 'diverge'],
        ['none', '3'],
        ['none', 'b'],
      ],
    ],
  ])('%s → not met', (_what, expectation, comparison, mentions) => {
    const r = checkExpectation(expectation, comparison);
    expect(r.met).toBe(false);
    expect(r.misses).toHaveLength(mentions.length);
    r.misses.forEach((m, i) => {
      for (const word of mentions[i]!) expect(m).toContain(word);
    });
  });
});
