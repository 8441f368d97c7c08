import { IQ4_NL_CODEC, Q4_0_CODEC, Q4_1_CODEC, Q5_0_CODEC, Q5_1_CODEC, Q8_0_CODEC } from './codecs-legacy';
import type { Codec } from './ggml-types';

const range = (n: number, f: (j: number) => number): number[] => Array.from({ length: n }, (_, j) => f(j));
/** 16 qs bytes whose low nibbles count up 0..15 and high nibbles count down 15..0. */
const QS = range(16, (j) => j | ((15 - j) << 4));
/** qh = LE u32 0x0ff05555: bit i is the 5th bit of element i (even i < 16, and 20..27). */
const QH = [0x55, 0x55, 0xf0, 0x0f];
/** The 5-bit levels QS and QH give, written out by hand. */
const Q5_LEVELS = [16, 1, 18, 3, 20, 5, 22, 7, 24, 9, 26, 11, 28, 13, 30, 15, 15, 14, 13, 12, 27, 26, 25, 24, 23, 22, 21, 20, 3, 2, 1, 0];

/**
 * Dequantizes [3 pad bytes, block, block with d doubled] into a destination at element 5 and
 * returns the two blocks' values; d is the block's first f16, so +0x0400 on its bits doubles it.
 */
function twoBlocks(codec: Codec, block: number[]): [number[], number[]] {
  const second = [...block];
  second[1] = second[1]! + 0x04;
  const src = Uint8Array.from([9, 9, 9, ...block, ...second]);
  const out = new Float32Array(5 + 64 + 1).fill(-99);
  codec.dequantize(src, 3, out, 5, 64);
  expect(out[4]).toBe(-99);
  expect(out[69]).toBe(-99);
  return [[...out.subarray(5, 37)], [...out.subarray(37, 69)]];
}

function bounds(codec: Codec, block: number[]): number[] {
  const out = new Float32Array(32);
  codec.bound(Uint8Array.from(block), 0, out, 0, 32);
  return [...out];
}

describe('legacy dequantizers on hand-built blocks', () => {
  it('Q8_0 {f16 d; i8 qs[32]}: y = qs·d, qs signed', () => {
    // d = 0x3800 = 0.5, qs[j] = 8j − 128 (0x80 = −128 … 0x78 = 120)
    const [y, y2] = twoBlocks(Q8_0_CODEC, [0x00, 0x38, ...range(32, (j) => (8 * j - 128) & 0xff)]);
    expect(y).toEqual(range(32, (j) => 4 * j - 64));
    expect(y2).toEqual(range(32, (j) => 8 * j - 128));
    expect(bounds(Q8_0_CODEC, [0x00, 0x38, ...range(32, () => 0)])).toEqual(range(32, () => 0.25));
  });

  it('Q4_0 {f16 d; u8 qs[16]}: low nibbles first half, high nibbles second, minus 8', () => {
    const [y, y2] = twoBlocks(Q4_0_CODEC, [0x00, 0x3c, ...QS]); // d = 1
    expect(y).toEqual([-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8]);
    expect(y2).toEqual(y.map((v) => 2 * v));
    expect(bounds(Q4_0_CODEC, [0x00, 0x3c, ...QS])).toEqual(range(32, () => 0.5));
  });

  it('Q4_1 {f16 d; f16 m; u8 qs[16]}: y = q·d + m', () => {
    const block = [0x00, 0x40, 0x00, 0xbc, ...QS]; // d = 2, m = −1
    const [y, y2] = twoBlocks(Q4_1_CODEC, block);
    expect(y).toEqual([...range(16, (j) => 2 * j - 1), ...range(16, (j) => 29 - 2 * j)]);
    expect(y2).toEqual([...range(16, (j) => 4 * j - 1), ...range(16, (j) => 59 - 4 * j)]);
    // d/2 plus the float32 rounding slack (|m| + 15·d)·2^-22
    expect(bounds(Q4_1_CODEC, block)).toEqual(range(32, () => 1 + 31 * 2 ** -22));
  });

  it('Q5_0 {f16 d; u8 qh[4]; u8 qs[16]}: qh is a LE u32 holding bit 4 of element i at bit i, minus 16', () => {
    const [y, y2] = twoBlocks(Q5_0_CODEC, [0x00, 0x3c, ...QH, ...QS]); // d = 1
    expect(y).toEqual([
      0, -15, 2, -13, 4, -11, 6, -9, 8, -7, 10, -5, 12, -3, 14, -1, -1, -2, -3, -4, 11, 10, 9, 8, 7, 6, 5, 4, -13, -14, -15, -16,
    ]);
    expect(y).toEqual(Q5_LEVELS.map((q) => q - 16));
    expect(y2).toEqual(y.map((v) => 2 * v));
    expect(bounds(Q5_0_CODEC, [0x00, 0x3c, ...QH, ...QS])).toEqual(range(32, () => 0.5));
  });

  it('Q5_1 {f16 d; f16 m; u8 qh[4]; u8 qs[16]}: same bits, y = q·d + m', () => {
    const block = [0x00, 0x38, 0x00, 0x42, ...QH, ...QS]; // d = 0.5, m = 3
    const [y, y2] = twoBlocks(Q5_1_CODEC, block);
    expect(y).toEqual(Q5_LEVELS.map((q) => q / 2 + 3));
    expect(y.slice(0, 4)).toEqual([11, 3.5, 12, 4.5]);
    expect(y2).toEqual(Q5_LEVELS.map((q) => q + 3));
    expect(bounds(Q5_1_CODEC, block)).toEqual(range(32, () => 0.25 + (3 + 31 * 0.5) * 2 ** -22));
  });

  it('IQ4_NL {f16 d; u8 qs[16]}: y = d·kvalues[nibble], negative d allowed', () => {
    const block = [0x00, 0xc0, ...QS]; // d = −2
    const [y, y2] = twoBlocks(IQ4_NL_CODEC, block);
    const lo = [254, 208, 166, 130, 98, 70, 44, 20, -2, -26, -50, -76, -106, -138, -178, -226];
    expect(y).toEqual([...lo, ...[...lo].reverse()]);
    expect(y2).toEqual(y.map((v) => 2 * v));
    expect(bounds(IQ4_NL_CODEC, block)).toEqual(range(32, () => 24)); // 12·|d|
  });
});

describe('legacy quantizers on hand-picked blocks', () => {
  function quantize(codec: Codec, bytes: number, x: number[]): number[] {
    const out = new Uint8Array(bytes + 2).fill(0xaa);
    codec.quantize(Float32Array.from(x), 0, 32, out, 1);
    expect([out[0], out[bytes + 1]]).toEqual([0xaa, 0xaa]);
    return [...out.subarray(1, bytes + 1)];
  }

  it('Q8_0: absmax 127/8 gives d = 1/8 (0x3000) and exact levels', () => {
    const q = range(32, (j) => 127 - 8 * j);
    expect(
      quantize(
        Q8_0_CODEC,
        34,
        q.map((v) => v / 8),
      ),
    ).toEqual([0x00, 0x30, ...q.map((v) => v & 0xff)]);
  });
  it('Q4_0: absmax 7 gives d = 1 and nibbles x + 8', () => {
    const x = range(32, (j) => (j % 15) - 7);
    const nib = x.map((v) => v + 8);
    expect(quantize(Q4_0_CODEC, 18, x)).toEqual([0x00, 0x3c, ...range(16, (j) => nib[j]! | (nib[j + 16]! << 4))]);
  });
  it('Q4_1: range [2, 17] gives m = 2, d = 1', () => {
    const x = range(32, (j) => (j % 16) + 2);
    expect(quantize(Q4_1_CODEC, 20, x)).toEqual([0x00, 0x3c, 0x00, 0x40, ...range(16, (j) => j | (j << 4))]);
  });
  it('Q5_0: absmax 15 gives d = 1, levels x + 16 split into qs nibbles and qh bits', () => {
    const x = [...range(31, (j) => j - 15), 15]; // levels 1..31, 31
    const lv = x.map((v) => v + 16);
    const qh = lv.reduce((h, v, i) => h + (v >= 16 ? 2 ** i : 0), 0); // bits 15..31 set
    expect(qh).toBe(0xffff8000);
    expect(quantize(Q5_0_CODEC, 22, x)).toEqual([
      0x00,
      0x3c,
      0x00,
      0x80,
      0xff,
      0xff,
      ...range(16, (j) => (lv[j]! & 15) | ((lv[j + 16]! & 15) << 4)),
    ]);
  });
  it('Q5_1: range [-31, 0] gives m = -31, d = 1', () => {
    const x = range(32, (j) => j - 31);
    expect(quantize(Q5_1_CODEC, 24, x)).toEqual([0x00, 0x3c, 0xc0, 0xcf, 0x00, 0x00, 0xff, 0xff, ...range(16, (j) => j | (j << 4))]);
  });
  it('IQ4_NL: the grid itself gives d = 1 and the identity indices', () => {
    const kv = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113];
    expect(quantize(IQ4_NL_CODEC, 18, [...kv, ...kv])).toEqual([0x00, 0x3c, ...range(16, (j) => j | (j << 4))]);
  });
  it('an all-zero block stores d = 0 and dequantizes to exact zeros with bound 0', () => {
    for (const [codec, bytes] of [
      [Q8_0_CODEC, 34],
      [Q4_0_CODEC, 18],
      [Q4_1_CODEC, 20],
      [Q5_0_CODEC, 22],
      [Q5_1_CODEC, 24],
      [IQ4_NL_CODEC, 18],
    ] as const) {
      const b = quantize(
        codec,
        bytes,
        range(32, () => 0),
      );
      expect(b.slice(0, 2)).toEqual([0, 0]);
      const y = new Float32Array(32).fill(1);
      codec.dequantize(Uint8Array.from(b), 0, y, 0, 32);
      expect([...y]).toEqual(range(32, () => 0));
      expect(bounds(codec, b)).toEqual(range(32, () => 0));
    }
  });
});
