import { Q2_K_CODEC, Q3_K_CODEC } from './codecs-q2k-q3k';

/** Bytes (a·i + b) mod 256. */
const pat = (len: number, a: number, b: number): number[] => Array.from({ length: len }, (_, i) => (a * i + b) & 255);

/** Indices where got !== want (so −0 and +0 agree). */
function mismatches(got: Float32Array, want: number[]): number[] {
  const bad: number[] = [];
  for (let i = 0; i < want.length; i++) if (got[i] !== Math.fround(want[i]!)) bad.push(i);
  return bad;
}

/** Decodes `blocks` (each `bytes` long) placed at byte 3 of a buffer, into a Float32Array at element 5. */
function decode(codec: typeof Q2_K_CODEC, blocks: number[][]): Float32Array {
  const src = Uint8Array.from([7, 7, 7, ...blocks.flat()]);
  const dst = new Float32Array(5 + 256 * blocks.length).fill(NaN);
  codec.dequantize(src, 3, dst, 5, 256 * blocks.length);
  expect(dst.subarray(0, 5).every((v) => Number.isNaN(v))).toBe(true);
  return dst.subarray(5);
}

describe('Q2_K dequantize (hand-built block)', () => {
  // scales[j] = j | (15 − j) << 4: sub-block j has sc = j, m = 15 − j. d = 0.5, dmin = 0.25 at the END.
  const scales = Array.from({ length: 16 }, (_, j) => j | ((15 - j) << 4));
  const qs = pat(64, 11, 5);
  const block = (dBits: number): number[] => [...scales, ...qs, dBits & 255, dBits >> 8, 0x00, 0x34];
  /** y[e] = d·sc·q − dmin·m with q = bits 2j of qs[32n + l] (n = e / 128, j = e % 128 / 32, l = e % 32). */
  const expected = (d: number): number[] =>
    Array.from({ length: 256 }, (_, e) => {
      const sub = e >> 4;
      const q = (qs[32 * (e >> 7) + (e & 31)]! >> (2 * ((e & 127) >> 5))) & 3;
      return d * sub * q - 0.25 * (15 - sub);
    });

  it('matches the formula element by element, with spot values worked by hand', () => {
    const y = decode(Q2_K_CODEC, [block(0x3800)]);
    expect(mismatches(y, expected(0.5))).toEqual([]);
    expect(y[0]).toBe(-3.75); // sc 0: −0.25·15
    expect(y[16]).toBe(-3); // qs[16] = 181, bits 0..1 = 1: 0.5·1·1 − 0.25·14
    expect(y[32]).toBe(-2.25); // shift 2 of qs[0] = 5 → 1: 0.5·2·1 − 0.25·13
    expect(y[200]).toBe(17.25); // second half, shift 4 of qs[40] = 189 → 3: 0.5·12·3 − 0.25·3
  });

  it('decodes consecutive blocks at any offsets', () => {
    const y = decode(Q2_K_CODEC, [block(0x3800), block(0x4000)]);
    expect(mismatches(y, [...expected(0.5), ...expected(2)])).toEqual([]);
  });
});

describe('Q3_K dequantize (hand-built block)', () => {
  const hmask = pat(32, 13, 7);
  const qs = pat(64, 11, 5);
  // raw 6-bit scales (signed scale = raw − 32, negatives included) packed as in quantize_row_q3_K_ref
  const raw = [0, 1, 31, 32, 33, 63, 10, 50, 5, 17, 40, 48, 60, 2, 35, 29];
  const scales = [0x50, 0x11, 0x8f, 0x00, 0xc1, 0x2f, 0x3a, 0xd2, 200, 28, 161, 126];
  const block = [...hmask, ...qs, ...scales, 0x00, 0x38]; // d = 0.5
  /** y[e] = d·(raw − 32)·(q2 − (hmask[e % 32] bit e/32 ? 0 : 4)). */
  const expected = Array.from({ length: 256 }, (_, e) => {
    const q2 = (qs[32 * (e >> 7) + (e & 31)]! >> (2 * ((e & 127) >> 5))) & 3;
    const h = (hmask[e & 31]! >> (e >> 5)) & 1;
    return 0.5 * (raw[e >> 4]! - 32) * (q2 - (h ? 0 : 4));
  });

  it('matches the formula, covering the hmask bit and negative scales', () => {
    const y = decode(Q3_K_CODEC, [block]);
    expect(mismatches(y, expected)).toEqual([]);
    expect(y[0]).toBe(-16); // scale −32, qs[0] = 5 → 1, hmask[0] = 7 bit 0 set: 0.5·−32·1
    expect(y[40]).toBe(-1.5); // scale −1, qs[8] = 93 shift 2 → 3, hmask[8] bit 1 set: 0.5·−1·3
    expect(y[66]).toBe(-1.5); // scale +1, qs[2] = 27 shift 4 → 1, hmask[2] = 33 bit 2 clear: 0.5·1·(1 − 4)
    expect(y[255]).toBe(-3); // scale −3, qs[63] = 186 shift 6 → 2, hmask[31] = 154 bit 7 set
    expect(y.subarray(48, 64).every((v) => v === 0)).toBe(true); // raw 32: scale 0
  });
});
