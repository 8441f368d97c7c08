import { Q4_K_CODEC, Q5_K_CODEC } from './codecs-q4k-q5k';
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

// get_scale_min_k4 gives sc = SC[j], m = M[j] for these 12 bytes (derivation in kquant-scales.test.ts);
// sub-blocks 4..7 take their top two bits from bytes j−4 (scale) and j (min).
const SC = [1, 2, 3, 4, 17, 33, 50, 63];
const M = [0, 1, 2, 3, 20, 40, 5, 63];
const K4_BYTES = [65, 130, 195, 196, 64, 129, 2, 195, 65, 129, 82, 255];
const qs = pat(128, 7, 3);
const qh = pat(32, 37, 11);

/** Sub-block s = e/32; chunk c = e/64 reads qs[32c + e%32], low nibble for the first 32 values. */
const nibble = (e: number): number => {
  const b = qs[32 * (e >> 6) + (e & 31)]!;
  return (e & 63) < 32 ? b & 15 : b >> 4;
};

describe('Q4_K dequantize (hand-built block, d = 1, dmin = 0.5)', () => {
  const block = (dBits: number): number[] => [dBits & 255, dBits >> 8, 0x00, 0x38, ...K4_BYTES, ...qs];
  const expected = (d: number): number[] => Array.from({ length: 256 }, (_, e) => d * SC[e >> 5]! * nibble(e) - 0.5 * M[e >> 5]!);

  it('matches d·sc·q − dmin·m per sub-block, with spot values worked by hand', () => {
    const y = decode(Q4_K_CODEC, [block(0x3c00)]);
    expect(mismatches(y, expected(1))).toEqual([]);
    expect(y[0]).toBe(3); // qs[0] = 3, low nibble, sc 1, m 0
    expect(y[32]).toBe(-0.5); // high nibble of qs[0] = 0, sc 2, m 1
    expect(y[133]).toBe(92); // qs[69] = 230 low nibble 6, sc 17, m 20: 102 − 10
    expect(y[255]).toBe(409.5); // qs[127] = 124 high nibble 7, sc 63, m 63: 441 − 31.5
  });

  it('decodes consecutive blocks at any offsets', () => {
    const y = decode(Q4_K_CODEC, [block(0x3c00), block(0x4000)]);
    expect(mismatches(y, [...expected(1), ...expected(2)])).toEqual([]);
  });
});

describe('Q5_K dequantize (hand-built block, d = 1, dmin = 0.5)', () => {
  const block = [0x00, 0x3c, 0x00, 0x38, ...K4_BYTES, ...qh, ...qs];
  /** Fifth bit of sub-block s at qh[e % 32] bit s: the same 32 qh bytes serve every chunk. */
  const expected = Array.from(
    { length: 256 },
    (_, e) => SC[e >> 5]! * (nibble(e) + 16 * ((qh[e & 31]! >> (e >> 5)) & 1)) - 0.5 * M[e >> 5]!,
  );

  it('matches the formula, qh not advanced per chunk', () => {
    const y = decode(Q5_K_CODEC, [block]);
    expect(mismatches(y, expected)).toEqual([]);
    expect(y[0]).toBe(19); // qh[0] = 11 bit 0 set: 3 + 16
    expect(y[32]).toBe(31.5); // qh[0] bit 1 set: 2·(0 + 16) − 0.5
    expect(y[133]).toBe(92); // qh[5] = 196 bit 4 clear: as Q4_K
    expect(y[255]).toBe(1417.5); // qh[31] = 134 bit 7 set: 63·(7 + 16) − 31.5
  });
});
