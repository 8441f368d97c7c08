import { transposeHost } from '../../core/probes/layout';
import { tokenSwaps } from './swapped-axes';

describe('tokenSwaps: equal-sized axes the shape check cannot tell apart', () => {
  it('LSE [N, T] with T = N: t and h exchanged; the fix of the canonical "h t" is "t h", of a declared "t h" it is "h t"', () => {
    expect(tokenSwaps('lse', [4, 4], 'h t')).toEqual([{ axes: ['h', 't'], perm: [1, 0], fix: 't h' }]);
    expect(tokenSwaps('lse', [4, 4], 't h').map((s) => s.fix)).toEqual(['h t']);
  });

  it('none when the sizes differ, or the two axes are model axes (h and v of one size can be a real bug)', () => {
    expect(tokenSwaps('lse', [4, 5], 'h t')).toEqual([]);
    expect(tokenSwaps('attn_out_heads', [3, 12, 12], 't h v')).toEqual([]);
  });

  it('a grouped declared layout keeps its group: "t (h v)" becomes "h (t v)"', () => {
    expect(tokenSwaps('attn_out_heads', [4, 4, 12], 't (h v)').map((s) => s.fix)).toEqual(['h (t v)']);
  });

  it('the permutation reads the values as if written with the axes exchanged', () => {
    const [swap] = tokenSwaps('lse', [2, 2], 'h t');
    expect(Array.from(transposeHost(Float64Array.from([0, 1, 10, 11]), [2, 2], swap!.perm).data)).toEqual([0, 10, 1, 11]);
  });

  it('a grouped canonical layout (attn_out "t hv") is not considered', () => expect(tokenSwaps('attn_out', [4, 4], 't hv')).toEqual([]));
});
