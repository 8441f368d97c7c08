import type { PairDiff } from '../run/diff';
import { pairDiff } from '../../test-utils/pairs';
import type { Verdict } from './compare';
import { pairVerdict } from './compare';
import { DEFAULT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;
const TOL = DEFAULT_REL.float32;

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
