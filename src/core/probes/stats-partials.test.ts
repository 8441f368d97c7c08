import { hostStats } from './stats';
import { PARTIAL_WIDTH, statsFromPartials } from './stats-partials';
import { hostPartials } from '../../test-utils/stats-kernel';

/** statsFromPartials on partials laid out as the webgpu kernel writes them (test-utils/stats-kernel.ts emulates it). */
describe('statsFromPartials', () => {
  const wave = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 1.3) * (i % 7 === 0 ? 8 : 1));
  const finish = (v: Float32Array, shape: number[], g: number) => statsFromPartials(hostPartials(v, g), g, shape, 'a b');

  it.each([
    [1, [1]],
    [5, [5]],
    [64, [4, 16]],
    [1000, [10, 100]],
    [1031, [1031]],
  ])('equals hostStats for %i values in groups of 1, 7, 64', (n, shape) => {
    const v = wave(n);
    const want = hostStats(v, shape, 'float32', 'a b');
    for (const g of [1, 7, 64]) {
      const got = finish(v, shape, g);
      expect({ ...got, l2: 0, rms: 0, mean: 0 }).toEqual({ ...want, l2: 0, rms: 0, mean: 0 });
      expect(Math.abs(got.l2 - want.l2)).toBeLessThanOrEqual(1e-6 * want.l2);
      expect(Math.abs(got.mean - want.mean)).toBeLessThanOrEqual(1e-6 * want.rms);
    }
  });

  it('keeps the first occurrence of the largest |x| across groups, and NaN, ±Inf out of the sums', () => {
    const v = Float32Array.from([1, NaN, -3, 2, 3, Infinity, -Infinity, -3, 0.5]);
    const got = finish(v, [3, 3], 2);
    expect(got).toMatchObject({ maxAbs: 3, maxAbsAt: [0, 2], nanCount: 1, infCount: 2, size: 9 });
    expect(got).toEqual(hostStats(v, [3, 3], 'float32', 'a b'));
  });

  it('undoes the power-of-two scale: squares past float32 range stay finite, tiny values keep their bits', () => {
    const v = Float32Array.from([3e38, -3e38, 1e-30]);
    const got = finish(v, [3], 2);
    const want = hostStats(v, [3], 'float32', 'a');
    expect(Number.isFinite(got.l2)).toBe(true);
    expect(Math.abs(got.l2 / want.l2 - 1)).toBeLessThan(1e-7); // the float32 partial's rounding only
    expect(got.mean).toBe(want.mean); // 1e-30 / 3: its own group, exact
  });

  it('a tensor without a finite value: maxAbs 0 at index 0, rms and mean 0 (as hostStats)', () => {
    const v = Float32Array.from([NaN, NaN, -Infinity]);
    expect(finish(v, [3], 2)).toEqual(hostStats(v, [3], 'float32', 'a b'));
  });

  it('rejects partials that do not fit the shape', () => {
    expect(() => statsFromPartials(new Float32Array(PARTIAL_WIDTH), 4, [5], 'a')).toThrow(/partials for 2 rows/);
  });
});
