import type { PathName } from '../../trace/stages';
import type { PairVerdict, Verdict } from './compare';
import { culpritOf } from './culprit';

const pv = (a: PathName, b: PathName, verdict: Verdict): PairVerdict => ({
  a,
  b,
  verdict,
  relErr: verdict === 'ok' ? 1e-7 : 0.3,
  normRatio: 1,
});
const oot: Verdict = 'out-of-tolerance';

describe('culprit with an external path', () => {
  it.each<[string, PairVerdict[], string]>([
    [
      'external off the reference, engines on it',
      [
        pv('mha', 'mqa', 'ok'),
        pv('mha', 'reference', 'ok'),
        pv('mqa', 'reference', 'ok'),
        pv('external', 'mha', oot),
        pv('external', 'mqa', oot),
        pv('external', 'reference', oot),
      ],
      'external',
    ],
    ['only external and the reference have the stage', [pv('external', 'reference', oot)], 'external'],
    [
      'no reference: external against agreeing mha and mqa',
      [pv('mha', 'mqa', 'ok'), pv('external', 'mha', oot), pv('external', 'mqa', oot)],
      'external',
    ],
    ['no reference, external against mha alone: cannot tell', [pv('external', 'mha', oot)], 'unknown'],
    [
      'external on the reference, mha off it: mha',
      [
        pv('mha', 'mqa', oot),
        pv('mha', 'reference', oot),
        pv('mqa', 'reference', 'ok'),
        pv('external', 'mha', oot),
        pv('external', 'reference', 'ok'),
      ],
      'mha',
    ],
    [
      'external and mha both off the reference: mha (engines judged among themselves)',
      [pv('mha', 'mqa', oot), pv('mha', 'reference', oot), pv('mqa', 'reference', 'ok'), pv('external', 'reference', oot)],
      'mha',
    ],
  ])('%s → %s', (_what, pairs, culprit) => expect(culpritOf(pairs, [], [])).toBe(culprit));
});
