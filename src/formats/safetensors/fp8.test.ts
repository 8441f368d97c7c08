import { E4M3_HALF_SPACING, E4M3_TABLE, E8M0_TABLE, e4m3ToF32, f32ToE4M3 } from './fp8';
import { lcg } from './test-utils/files';

describe('E4M3FN decode table', () => {
  it('has the hand-computed values', () => {
    expect(e4m3ToF32(0x00)).toBe(0);
    expect(Object.is(e4m3ToF32(0x80), -0)).toBe(true);
    expect(e4m3ToF32(0x38)).toBe(1); // e=7, m=0: 2^0
    expect(e4m3ToF32(0x3c)).toBe(1.5); // e=7, m=4: 1 + 4/8
    expect(e4m3ToF32(0x40)).toBe(2);
    expect(e4m3ToF32(0xc4)).toBe(-3); // s=1, e=8, m=4: -2·1.5
    expect(e4m3ToF32(0x7e)).toBe(448); // e=15, m=6: 2^8·1.75
    expect(e4m3ToF32(0xfe)).toBe(-448);
    expect(e4m3ToF32(0x7f)).toBeNaN();
    expect(e4m3ToF32(0xff)).toBeNaN();
    expect(e4m3ToF32(0x01)).toBe(2 ** -9); // smallest subnormal 2^-6·1/8
    expect(e4m3ToF32(0x07)).toBe(7 * 2 ** -9); // largest subnormal
    expect(e4m3ToF32(0x08)).toBe(2 ** -6); // smallest normal
  });

  it('has 254 finite values, no infinities, max 448', () => {
    const finite = [...E4M3_TABLE].filter((v) => Number.isFinite(v));
    expect(finite).toHaveLength(254);
    expect([...E4M3_TABLE].some((v) => v === Infinity || v === -Infinity)).toBe(false);
    expect(Math.max(...finite)).toBe(448);
    expect(Math.min(...finite)).toBe(-448);
  });

  it('half spacing is 2^(max(e,1)-11)', () => {
    expect(E4M3_HALF_SPACING[0x00]).toBe(2 ** -10);
    expect(E4M3_HALF_SPACING[0x07]).toBe(2 ** -10);
    expect(E4M3_HALF_SPACING[0x38]).toBe(2 ** -4); // 1.0 → next 1.125
    expect(E4M3_HALF_SPACING[0xfe]).toBe(16); // 448 → spacing 32
    expect(E4M3_HALF_SPACING[0x7f]).toBeNaN();
  });

  it('E8M0 is 2^(e-127), 0xFF NaN', () => {
    expect(E8M0_TABLE[127]).toBe(1);
    expect(E8M0_TABLE[120]).toBe(2 ** -7);
    expect(E8M0_TABLE[0]).toBe(2 ** -127);
    expect(E8M0_TABLE[255]).toBeNaN();
  });
});

describe('E4M3FN encode', () => {
  it('round-trips every finite byte', () => {
    for (let b = 0; b < 256; b++) {
      if ((b & 0x7f) === 0x7f) continue;
      expect([b, f32ToE4M3(E4M3_TABLE[b]!)]).toEqual([b, b]);
    }
  });

  it('breaks ties to the even mantissa', () => {
    expect(f32ToE4M3(1.0625)).toBe(0x38); // 1.0 (m=0) | 1.125 (m=1) → 1.0
    expect(f32ToE4M3(1.0625 + 2 ** -40)).toBe(0x39); // just above the tie → up
    expect(f32ToE4M3(1.1875)).toBe(0x3a); // 1.125 (m=1) | 1.25 (m=2) → 1.25
    expect(f32ToE4M3(1.9375)).toBe(0x40); // 1.875 (m=7) | 2.0 → carries into the next exponent
    expect(f32ToE4M3(432)).toBe(0x7e); // 416 (m=5) | 448 (m=6) → 448
    expect(f32ToE4M3(2 ** -10)).toBe(0x00); // 0 | 2^-9 → 0
    expect(f32ToE4M3(3 * 2 ** -10)).toBe(0x02); // 2^-9 (m=1) | 2^-8 (m=2) → m=2
    expect(f32ToE4M3(7.5 * 2 ** -9)).toBe(0x08); // largest subnormal | smallest normal → 2^-6
    expect(f32ToE4M3(-1.0625)).toBe(0xb8);
  });

  it('saturates to ±448, keeps NaN and -0', () => {
    expect(f32ToE4M3(464)).toBe(0x7e);
    expect(f32ToE4M3(1e9)).toBe(0x7e);
    expect(f32ToE4M3(Infinity)).toBe(0x7e);
    expect(f32ToE4M3(-Infinity)).toBe(0xfe);
    expect(f32ToE4M3(NaN)).toBe(0x7f);
    expect(f32ToE4M3(-0)).toBe(0x80);
  });

  it('picks the nearest value, within half a spacing', () => {
    const finite = [...E4M3_TABLE].filter((v) => Number.isFinite(v));
    const rnd = lcg(7);
    for (let k = 0; k < 3000; k++) {
      const x = rnd() * 2 ** (rnd() * 20 - 11); // magnitudes 2^-12 .. 2^9, both signs
      const b = f32ToE4M3(x);
      const err = Math.abs(x - E4M3_TABLE[b]!);
      const best = Math.min(...finite.map((v) => Math.abs(x - v)));
      expect([x, err]).toEqual([x, best]);
      if (Math.abs(x) <= 448) expect(err).toBeLessThanOrEqual(E4M3_HALF_SPACING[b]!);
    }
  });
});
