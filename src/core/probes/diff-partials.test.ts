import { DIFF_WIDTH, diffFromPartials } from './diff-partials';
import { hostDiffPartials } from '../../test-utils/diff-kernel';

/** diffFromPartials on partials laid out as the webgpu diff kernel writes them (test-utils/diff-kernel.ts emulates it). */
describe('diffFromPartials', () => {
  const wave = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * (i % 7 === 0 ? 8 : 1));
  const direct = (a: Float32Array, b: Float32Array) => {
    let [dd, aa, bb, ab] = [0, 0, 0, 0];
    for (let i = 0; i < a.length; i++) {
      dd += (a[i]! - b[i]!) ** 2;
      aa += a[i]! ** 2;
      bb += b[i]! ** 2;
      ab += a[i]! * b[i]!;
    }
    return { dd, aa, bb, ab };
  };

  it.each([1, 5, 64, 1031])('equals the direct float64 sums for %i values in groups of 1, 7, 64', (n) => {
    const [a, b] = [wave(n, 1.3), wave(n, 1.31)];
    const want = direct(a, b);
    for (const g of [1, 7, 64]) {
      const got = diffFromPartials(hostDiffPartials(a, b, g), g, n);
      const tol = 1e-6 * (want.aa + want.bb); // float32 partials
      for (const k of ['dd', 'aa', 'bb', 'ab'] as const) expect(Math.abs(got[k] - want[k])).toBeLessThanOrEqual(tol);
      expect([got.nanA, got.nanB, got.inf]).toEqual([0, 0, 0]);
    }
  });

  it('keeps the first largest |a − b| across groups; NaN and unmatched infinities counted, out of the sums', () => {
    const a = Float32Array.from([1, NaN, 5, Infinity, 2, -Infinity, 0, 3]);
    const b = Float32Array.from([1, 2, NaN, Infinity, 0, Infinity, 2, 1]);
    const got = diffFromPartials(hostDiffPartials(a, b, 3), 3, a.length);
    expect(got).toMatchObject({ maxAbs: 2, at: 4, nanA: 1, nanB: 1, inf: 1, dd: 12, aa: 14, bb: 6 });
  });

  it('undoes the power-of-two scale: squares past float32 range stay finite', () => {
    const [a, b] = [Float32Array.from([3e38, -3e38]), Float32Array.from([3e38, 3e38])];
    const got = diffFromPartials(hostDiffPartials(a, b, 2), 2, 2);
    expect(Number.isFinite(got.dd) && Number.isFinite(got.aa)).toBe(true);
    expect(got.dd / (2 * 3e38) ** 2).toBeCloseTo(1, 6);
  });

  it('no finite pair: maxAbs 0 at index 0', () => {
    const got = diffFromPartials(hostDiffPartials(Float32Array.of(NaN, NaN), Float32Array.of(1, NaN), 1), 1, 2);
    expect(got).toMatchObject({ maxAbs: 0, at: 0, nanA: 2, nanB: 1, dd: 0 });
  });

  it('rejects partials that do not fit the size', () => {
    expect(() => diffFromPartials(new Float32Array(DIFF_WIDTH), 4, 5)).toThrow(/partials for 2 rows/);
  });
});
