import { err, num, position } from './format';

describe('num', () => {
  it.each<[number | null | undefined, string]>([
    [0.0625, '0.0625'],
    [1000, '1000'],
    [131.398, '131.4'],
    [25.87, '25.87'],
    [7.6143, '7.614'],
    [0.2041241, '0.2041'],
    [-2.5, '-2.5'],
    [1, '1'],
    [0.001, '0.001'],
    [0.00123456, '0.001235'],
    [9999, '9999'],
    [12345, '12350'],
    [98765.4, '98770'],
    [0, '0'],
    [null, '—'],
    [undefined, '—'],
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
  ])('num(%p) = %p', (x, want) => {
    expect(num(x)).toBe(want);
  });

  it.each([1e-7, 0.000999, -3e-5, 1e5, 123456, 6.02e23])('num(%p) uses an exponent', (x) => {
    expect(num(x)).toMatch(/^-?\d(\.\d+)?e[+-]\d+$/);
    expect(Number(num(x))).toBeCloseTo(x, -Math.floor(Math.log10(Math.abs(x))) + 1);
  });

  it.each([0.001, 0.05, 1, 42.5, 999.9, 9999.6, 54321, 99990])('num(%p) has no exponent inside [1e-3, 1e5)', (x) => {
    expect(num(x)).not.toContain('e');
  });
});

describe('err', () => {
  it.each<[number | null | undefined, string]>([
    [0, '0'],
    [null, '—'],
    [undefined, '—'],
    [1.34e-6, '1.3e-6'],
    [2.2e-7, '2.2e-7'],
    [0.25, '2.5e-1'],
    [1, '1.0e+0'],
    [123, '1.2e+2'],
  ])('err(%p) = %p', (x, want) => {
    expect(err(x)).toBe(want);
  });
});

describe('position', () => {
  it.each<[number[] | null | undefined, string]>([
    [[0, 3, 1], '[0,3,1]'],
    [[], '[]'],
    [null, ''],
    [undefined, ''],
  ])('position(%p) = %p', (at, want) => {
    expect(position(at)).toBe(want);
  });
});
