import { preset } from './presets';
import { invFreq, ropeMscale, ropePair, ropeTables } from './rope';

describe('RoPE tables', () => {
  it('GLM-5: inv_freq_i = 1e6^(-2i/64), no scaling', () => {
    const c = preset('glm-5');
    const f = invFreq(c);
    expect(f.length).toBe(32);
    expect(f[0]).toBe(1);
    expect(f[5]).toBeCloseTo(1e6 ** (-10 / 64), 15);
    expect(ropeMscale(c)).toBe(1);
  });

  it('DeepSeek-V3 YaRN: fast dims extrapolate, slow dims interpolate by the factor', () => {
    const c = preset('deepseek-v3');
    const f = invFreq(c);
    const base = (i: number) => 10_000 ** ((-2 * i) / 64);
    expect(f[0]).toBeCloseTo(base(0), 15); // highest frequency: unchanged
    expect(f[31]).toBeCloseTo(base(31) / 40, 15); // lowest: divided by the factor
    for (let i = 1; i < 32; i++) expect(f[i]! <= f[i - 1]!).toBe(true);
    expect(ropeMscale(c)).toBe(1); // mscale == mscale_all_dim
  });

  it('position 0 is the identity rotation', () => {
    const t = ropeTables(preset('tiny'), [0, 3]);
    for (let i = 0; i < t.half; i++) {
      expect(t.cos[i]).toBe(1);
      expect(t.sin[i]).toBe(0);
    }
    expect(t.cos[t.half]).toBeCloseTo(Math.cos(3), 12);
  });

  it('pairs: GPT-J interleaved (2i, 2i+1), NeoX halves (i, i+R/2)', () => {
    expect(ropePair('gptj', 3, 32)).toEqual([6, 7]);
    expect(ropePair('neox', 3, 32)).toEqual([3, 35]);
  });
});
