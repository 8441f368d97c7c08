import { IQ4_XS_CODEC, Q6_K_CODEC } from './codecs-q6k-iq4xs';
import type { Codec } from './ggml-types';

const pat = (len: number, a: number, b: number): number[] => Array.from({ length: len }, (_, i) => (a * i + b) & 255);

function mismatches(got: Float32Array, want: number[]): number[] {
  const bad: number[] = [];
  for (let i = 0; i < want.length; i++) if (got[i] !== Math.fround(want[i]!)) bad.push(i);
  return bad;
}

function decode(codec: Codec, blocks: number[][]): Float32Array {
  const src = Uint8Array.from([7, 7, 7, ...blocks.flat()]);
  const dst = new Float32Array(5 + 256 * blocks.length).fill(NaN);
  codec.dequantize(src, 3, dst, 5, 256 * blocks.length);
  expect(dst.subarray(0, 5).every((v) => Number.isNaN(v))).toBe(true);
  return dst.subarray(5);
}

describe('Q6_K dequantize (hand-built block, d = 0.25)', () => {
  const ql = pat(128, 7, 3);
  const qh = pat(64, 37, 11);
  const sc = [-128, -100, -3, 0, 1, 5, 17, 127, -1, -60, 42, 99, -77, 8, 64, -16];
  const block = (dBits: number): number[] => [...ql, ...qh, ...sc.map((s) => s & 255), dBits & 255, dBits >> 8];
  /**
   * Half h = e/128, quarter k = e%128/32, l = e%32: low 4 bits from ql[64h + l + 32(k odd)]
   * (low nibble for k < 2), high 2 bits at qh[32h + l] bits 2k; q − 32; scale sc[e/16].
   */
  const expected = (d: number): number[] =>
    Array.from({ length: 256 }, (_, e) => {
      const h = e >> 7;
      const k = (e & 127) >> 5;
      const l = e & 31;
      const lo = ql[64 * h + l + 32 * (k & 1)]!;
      const q = ((k < 2 ? lo & 15 : lo >> 4) | (((qh[32 * h + l]! >> (2 * k)) & 3) << 4)) - 32;
      return d * sc[e >> 4]! * q;
    });

  it('matches the formula at all four quarter positions, with int8 scales', () => {
    const y = decode(Q6_K_CODEC, [block(0x3400)]);
    expect(mismatches(y, expected(0.25))).toEqual([]);
    expect(y[0]).toBe(-608); // ql[0] = 3, qh[0] = 11 bits 0..1 = 3: q = 51 − 32 = 19; 0.25·−128·19
    expect(y[32]).toBe(-2.25); // ql[32] = 227 low 3, qh bits 2..3 = 2: q = 35 − 32; 0.25·−3·3
    expect(y[64]).toBe(-8); // ql[0] high 0, qh bits 4..5 = 0: q = −32; 0.25·1·−32
    expect(y[96]).toBe(-76.5); // ql[32] high 14, qh bits 6..7 = 0: q = −18; 0.25·17·−18
    expect(y[255]).toBe(100); // ql[127] = 124 high 7, qh[63] = 38 bits 6..7 = 0: q = −25; 0.25·−16·−25
  });

  it('decodes consecutive blocks at any offsets', () => {
    const y = decode(Q6_K_CODEC, [block(0x3400), block(0xb800)]); // d = 0.25, then −0.5
    expect(mismatches(y, [...expected(0.25), ...expected(-0.5)])).toEqual([]);
  });
});

describe('IQ4_XS dequantize (hand-built block, d = 0.125)', () => {
  const KV = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113];
  const ls = [0, 63, 32, 31, 33, 16, 47, 1]; // 6-bit; the sub-block scale is d·(ls − 32)
  // scales_l[i] = (ls[2i] & 15) | (ls[2i+1] & 15) << 4; scales_h = Σ (ls[ib] >> 4) << 2ib = 0x266c
  const scalesL = [0 | (15 << 4), 0 | (15 << 4), 1 | (0 << 4), 15 | (1 << 4)];
  const scalesH = (3 << 2) | (2 << 4) | (1 << 6) | (2 << 8) | (1 << 10) | (2 << 12);
  const qs = pat(128, 7, 3);
  const block = [0x00, 0x30, scalesH & 255, scalesH >> 8, ...scalesL, ...qs];
  /** Sub-block ib = e/32 reads qs[16ib + e%16], low nibble for its first 16 values. */
  const expected = Array.from({ length: 256 }, (_, e) => {
    const b = qs[16 * (e >> 5) + (e & 15)]!;
    return 0.125 * (ls[e >> 5]! - 32) * KV[(e & 31) < 16 ? b & 15 : b >> 4]!;
  });

  it('matches the formula, with the scale split over scales_l and scales_h', () => {
    expect(scalesH).toBe(0x266c);
    const y = decode(IQ4_XS_CODEC, [block]);
    expect(mismatches(y, expected)).toEqual([]);
    expect(y[0]).toBe(260); // ls 0 → −32, qs[0] = 3 → KV −65: 0.125·−32·−65
    expect(y[16]).toBe(508); // high nibble 0 → KV −127
    expect(y[32]).toBe(-251.875); // ls 63 → 31, qs[16] = 115 low 3 → −65
    expect(y[255]).toBe(38.75); // ls 1 → −31, qs[127] = 124 high 7 → KV −10
    expect(y.subarray(64, 96).every((v) => v === 0)).toBe(true); // ls 32 → 0
  });
});
