/** checkExpectation: a scenario's expect: (outcome, first divergence, culprit, step, request) against a comparison, met or with misses. */
import type { StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { Expectation } from '../scenario/scenario';
import { ONE_SHOT_STAGES, piece } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import type { CaseComparison } from './compare';
import { compareCase } from './compare';
import { checkExpectation } from './expect';
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
