import { axisRelErr, meanNormalizedEntropy } from './detail';

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
