import { bf16ToF32, f16ToF32, f32ToBf16, f32ToF16, roundF16 } from './half';

describe('half floats', () => {
  it('f16 round-trips every finite binary16 value exactly', () => {
    for (let h = 0; h < 65536; h++) {
      const x = f16ToF32(h);
      if (Number.isNaN(x)) continue;
      expect(f32ToF16(x)).toBe(x === 0 && h === 0x8000 ? 0x8000 : h);
    }
  });
  it('f16 rounds to nearest even, overflows to inf, keeps subnormals', () => {
    expect(f16ToF32(f32ToF16(1 + 2 ** -11))).toBe(1); // tie → even
    expect(f16ToF32(f32ToF16(1 + 3 * 2 ** -11))).toBe(1 + 2 ** -9);
    expect(f16ToF32(f32ToF16(70000))).toBe(Infinity);
    expect(f16ToF32(f32ToF16(2 ** -24))).toBe(2 ** -24);
    expect(roundF16(0.1)).toBeCloseTo(0.0999755859375, 12);
  });
  it('bf16 keeps the top 16 bits with round-to-nearest-even', () => {
    expect(bf16ToF32(0x3f80)).toBe(1);
    expect(bf16ToF32(f32ToBf16(1 + 2 ** -8))).toBe(1); // tie → even
    expect(bf16ToF32(f32ToBf16(1 + 3 * 2 ** -8))).toBe(1 + 2 ** -6);
    expect(Number.isNaN(bf16ToF32(f32ToBf16(NaN)))).toBe(true);
    expect(bf16ToF32(f32ToBf16(-2.5))).toBe(-2.5);
  });
});
