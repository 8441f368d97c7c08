/** culpritOf: who is wrong at a divergent record, by the reference, a majority of three, NaN sides and invariant checks. */
import type { PathName } from '../../trace/stages';
import type { Culprit } from '../scenario/scenario';
import { pairDiff } from '../../test-utils/pairs';
import type { CheckResult, PairVerdict, Verdict } from './compare';
import { culpritOf } from './culprit';

const OK = 1e-7;
const BAD = 0.25;

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
