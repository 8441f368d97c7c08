import { preset } from './presets';
import { invFreq, invFreqF32, ropeAngleRms, ropeMscale, ropePair, ropeTables } from './rope';

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

describe('RoPE tables with fp32 angles (as engines compute them)', () => {
  it('agree with the exact tables to fp32 rounding near 0 and part by the angle rounding far out', () => {
    const c = preset('deepseek-v3');
    const a = ropeTables(c, [0, 1, 7], 'float64');
    const b = ropeTables(c, [0, 1, 7], 'float32');
    for (let i = 0; i < a.cos.length; i++) {
      expect(Math.abs(b.cos[i]! - a.cos[i]!)).toBeLessThan(1e-6);
      expect(Math.abs(b.sin[i]! - a.sin[i]!)).toBeLessThan(1e-6);
    }
    expect(b.cos[0]).toBe(Math.fround(a.mscale)); // position 0: the identity, times mscale in fp32
    expect(Array.from(b.cos).every((x) => x === Math.fround(x))).toBe(true);
  });

  it('the RMS error grows with the position: ~1e-5 past 4096 (DeepSeek-V3 YaRN), ~1e-3 at 128k (GLM-5)', () => {
    const ds = preset('deepseek-v3');
    const glm = preset('glm-5');
    const near = ropeAngleRms(ds, [0, 1, 2, 3]);
    const at4k = ropeAngleRms(ds, [4093, 4094, 4095, 4096, 4097, 4098]);
    const at128k = ropeAngleRms(glm, [131_068, 131_069, 131_070, 131_071]);
    expect(near).toBeLessThan(1e-7);
    expect(at4k).toBeGreaterThan(3e-6);
    expect(at4k).toBeLessThan(1e-4);
    expect(at128k).toBeGreaterThan(1e-4);
    expect(at128k).toBeLessThan(1e-2);
    expect(ropeAngleRms(glm, [])).toBe(0);
  });

  it('inv_freq in fp32 is the float64 one rounded, to a few ulps (YaRN blend included)', () => {
    for (const name of ['glm-5', 'deepseek-v3'] as const) {
      const a = invFreq(preset(name));
      const b = invFreqF32(preset(name));
      for (let i = 0; i < a.length; i++) expect(Math.abs(b[i]! / a[i]! - 1)).toBeLessThan(4 * 2 ** -24);
    }
  });
});
