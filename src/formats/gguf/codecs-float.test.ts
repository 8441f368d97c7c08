import { bf16ToF32, f16ToF32 } from '../half';
import { mulberry32, sampleRow } from '../../test-utils/codec-samples';
import { BF16_CODEC, F16_CODEC, F32_CODEC } from './codecs-float';
import type { Codec } from './ggml-types';

const { abs } = Math;

function deq(codec: Codec, bytes: number[], offset: number, n: number): Float32Array {
  const src = Uint8Array.from(bytes);
  const out = new Float32Array(n + 2).fill(-99);
  codec.dequantize(src, offset, out, 1, n);
  expect(out[0]).toBe(-99); // nothing written outside [dstOffset, dstOffset + n)
  expect(out[n + 1]).toBe(-99);
  return out.subarray(1, n + 1);
}

function bound(codec: Codec, bytes: number[], n: number): number[] {
  const out = new Float32Array(n);
  codec.bound(Uint8Array.from(bytes), 0, out, 0, n);
  return [...out];
}

describe('F32/F16/BF16 dequantize hand-built bytes', () => {
  it('F32 reads little-endian floats, also at an unaligned offset', () => {
    // 1.0 = 0x3f800000, -2.5 = 0xc0200000, 2^-149 = 0x00000001 (smallest subnormal)
    const bytes = [0xee, 0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0, 1, 0, 0, 0];
    expect([...deq(F32_CODEC, bytes, 1, 3)]).toEqual([1, -2.5, 2 ** -149]);
  });
  it('F16 reads little-endian binary16: normal, subnormal, max, inf, -0', () => {
    // 0x3c00 = 1, 0xc100 = -2.5, 0x0001 = 2^-24, 0x7bff = 65504, 0xfc00 = -inf, 0x8000 = -0
    const bytes = [0, 0x3c, 0, 0xc1, 1, 0, 0xff, 0x7b, 0, 0xfc, 0, 0x80];
    const y = deq(F16_CODEC, bytes, 0, 6);
    expect([...y]).toEqual([1, -2.5, 2 ** -24, 65504, -Infinity, -0]);
    expect(Object.is(y[5], -0)).toBe(true);
  });
  it('BF16 is the top half of a float32', () => {
    // 0x3f80 = 1, 0xc020 = -2.5, 0x0001 = 2^-133 (subnormal), 0x7f80 = inf, 0x4049 = 3.140625
    const bytes = [0x55, 0x80, 0x3f, 0x20, 0xc0, 1, 0, 0x80, 0x7f, 0x49, 0x40];
    expect([...deq(BF16_CODEC, bytes, 1, 5)]).toEqual([1, -2.5, 2 ** -133, Infinity, 3.140625]);
  });
});

describe('F32/F16/BF16 bounds', () => {
  it('F32 is exact', () => {
    expect(bound(F32_CODEC, [0, 0, 0x80, 0x3f], 1)).toEqual([0]);
  });
  it('F16: half an ulp of the stored value, 2^-25 for subnormals, inf for inf', () => {
    // 1.0 (ulp 2^-10), 65504 (ulp 32), 2^-24 (subnormal, ulp 2^-24), 2^-14 (smallest normal), inf
    const bytes = [0, 0x3c, 0xff, 0x7b, 1, 0, 0, 0x04, 0, 0x7c];
    expect(bound(F16_CODEC, bytes, 5)).toEqual([2 ** -11, 16, 2 ** -25, 2 ** -25, Infinity]);
  });
  it('BF16: half an ulp of the stored value (7 mantissa bits)', () => {
    // 1.0 (ulp 2^-7), -3.140625 (exponent 1, ulp 2^-6), subnormal 0x0001 (ulp 2^-133)
    const bytes = [0x80, 0x3f, 0x49, 0xc0, 1, 0];
    expect(bound(BF16_CODEC, bytes, 3)).toEqual([2 ** -8, 2 ** -7, 2 ** -134]);
  });
});

describe('F32/F16/BF16 round trip', () => {
  const rand = mulberry32(7);
  // The shared sample blocks plus magnitudes from 2^-30 (F16 subnormal) up to 2^15, both signs.
  const spread = Float32Array.from({ length: 512 }, () => (rand() < 0.5 ? -1 : 1) * 2 ** (-30 + 45 * rand()));
  const data = new Float32Array([...sampleRow(3), ...spread, 1 + 2 ** -11, 1 + 3 * 2 ** -11]);

  function roundTrip(codec: Codec, width: number): { y: Float32Array; b: Float32Array; bytes: Uint8Array } {
    const bytes = new Uint8Array(data.length * width + 3);
    codec.quantize(data, 0, data.length, bytes, 3);
    const y = new Float32Array(data.length);
    const b = new Float32Array(data.length);
    codec.dequantize(bytes, 3, y, 0, data.length);
    codec.bound(bytes, 3, b, 0, data.length);
    return { y, b, bytes };
  }

  it('F32 is bit exact', () => {
    const { y, b } = roundTrip(F32_CODEC, 4);
    expect(y).toEqual(data);
    expect(b.every((v) => v === 0)).toBe(true);
  });

  it('F16 stays within its bound, which is at most 2^-11 relative or 2^-25 absolute', () => {
    const { y, b, bytes } = roundTrip(F16_CODEC, 2);
    for (let i = 0; i < data.length; i++) {
      const x = data[i]!;
      expect(y[i]).toBe(f16ToF32(bytes[3 + 2 * i]! | (bytes[4 + 2 * i]! << 8)));
      expect(abs(x - y[i]!)).toBeLessThanOrEqual(b[i]!);
      expect(b[i]!).toBeLessThanOrEqual(abs(y[i]!) * 2 ** -11 + 2 ** -25);
    }
    // 1 + 2^-11 is a tie that rounds to even (1.0) with error exactly the bound; 1 + 3·2^-11 rounds up.
    expect(y[data.length - 2]).toBe(1);
    expect(b[data.length - 2]).toBe(2 ** -11);
    expect(y[data.length - 1]).toBe(1 + 2 ** -9);
  });

  it('BF16 stays within its bound, which is at most 2^-8 relative or 2^-134 absolute', () => {
    const { y, b, bytes } = roundTrip(BF16_CODEC, 2);
    for (let i = 0; i < data.length; i++) {
      const x = data[i]!;
      expect(y[i]).toBe(bf16ToF32(bytes[3 + 2 * i]! | (bytes[4 + 2 * i]! << 8)));
      expect(abs(x - y[i]!)).toBeLessThanOrEqual(b[i]!);
      expect(b[i]!).toBeLessThanOrEqual(abs(y[i]!) * 2 ** -8 + 2 ** -134);
    }
  });
});
