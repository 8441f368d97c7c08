import { axisRelErr, meanNormalizedEntropy, rowScaledRelErr, swappedRelErr } from './detail-math';

describe('detail measurements', () => {
  it('axisRelErr: per index of one axis, an unmatched infinity is Infinity, zeros agree', () => {
    // [2,3]: row 0 equal, row 1 off by 10 % in one element; columns then
    const a = [1, 2, 3, 4, 5, 6];
    const b = [1, 2, 3, 4, 5, 6.6];
    const rows = axisRelErr(a, b, [2, 3], 0);
    expect(rows[0]).toBe(0);
    expect(rows[1]).toBeCloseTo(0.6 / Math.hypot(4, 5, 6.6), 12);
    expect(axisRelErr(a, b, [2, 3], 1)).toEqual([0, 0, expect.closeTo(0.6 / Math.hypot(3, 6.6), 12)]);
    expect(axisRelErr([0, Infinity], [0, 1], [2], 0)).toEqual([0, Infinity]);
  });

  it('meanNormalizedEntropy: uniform rows give 1, one-hot rows 0, rows seeing one key are skipped', () => {
    // [1,2,2]: query 0 sees 1 key (skipped), query 1 sees 2
    expect(meanNormalizedEntropy([1, 0, 0.5, 0.5], [1, 2, 2])).toBeCloseTo(1, 12);
    expect(meanNormalizedEntropy([1, 0, 1, 0], [1, 2, 2])).toBe(0);
    expect(meanNormalizedEntropy([1], [1, 1, 1])).toBeNull();
  });
});

describe('the swapped-axes reading of a two-axis record', () => {
  // b: the right [N=2, T=3] LSE; a: the same values handed over as [T, N] data, read as [N, T]
  const b = [1, 2, 3, 4, 5, 6];
  const tn = [1, 4, 2, 5, 3, 6];
  it('swappedRelErr: 0 for [T,N] data read as [N,T] and for the inverse reading; the plain error stays', () => {
    expect(axisRelErr(tn, b, [6], 0).some((e) => e > 0)).toBe(true);
    expect(swappedRelErr(tn, b, [2, 3])).toBe(0);
    // the inverse: [N,T] data that the reader transposed from a declared [T,N]
    const inv = [1, 3, 5, 2, 4, 6];
    expect(swappedRelErr(inv, b, [2, 3])).toBe(0);
    expect(swappedRelErr(b, b, [2, 3])).toBeGreaterThan(0.1);
    expect(swappedRelErr(b, b, [1, 6])).toBeNull();
  });
});

describe('the row-scaled error of a normalized record', () => {
  it('rowScaledRelErr: 0 when each row is off by a factor of its own, the residual otherwise', () => {
    const b = [1, 2, 3, 4, 5, 6];
    expect(rowScaledRelErr([2, 4, 6, 0.5 * 4, 0.5 * 5, 0.5 * 6], b, [2, 3])).toBeCloseTo(0, 12);
    expect(rowScaledRelErr([1, 2, 3, 4, 6, 5], b, [2, 3])).toBeGreaterThan(0.05);
    expect(rowScaledRelErr([NaN, 2, 3, 4, 5, 6], b, [2, 3])).toBeNull();
  });
});
