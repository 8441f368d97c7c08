import { axes, isIdentity, permutation, permuteShape, strides, transposeHost, unravel } from './layout';

describe('layouts', () => {
  it('parses axis names and finds permutations', () => {
    expect(axes(' t  h s ')).toEqual(['t', 'h', 's']);
    expect(permutation('t h s', 'h t s')).toEqual([1, 0, 2]);
    expect(permutation('t h', 'h t')).toEqual([1, 0]);
    expect(isIdentity(permutation('h p l', 'h p l'))).toBe(true);
    expect(() => permutation('t h', 't s')).toThrow();
  });

  it('strides and unravel are row-major', () => {
    expect(strides([2, 3, 4])).toEqual([12, 4, 1]);
    expect(unravel(23, [2, 3, 4])).toEqual([1, 2, 3]);
    expect(unravel(5, [2, 3, 4])).toEqual([0, 1, 1]);
  });

  it('transposeHost matches index arithmetic for a 3-D permutation', () => {
    const shape = [2, 3, 4];
    const data = Float64Array.from({ length: 24 }, (_, i) => i);
    const perm = permutation('a b c', 'c a b');
    const { data: out, shape: s } = transposeHost(data, shape, perm);
    expect(s).toEqual(permuteShape(shape, perm));
    for (let a = 0; a < 2; a++)
      for (let b = 0; b < 3; b++)
        for (let c = 0; c < 4; c++) {
          expect(out[(c * 2 + a) * 3 + b]).toBe(data[(a * 3 + b) * 4 + c]);
        }
  });

  it('identity permutation returns the same array (no copy)', () => {
    const data = new Float32Array(6);
    expect(transposeHost(data, [2, 3], [0, 1]).data).toBe(data);
  });
});
