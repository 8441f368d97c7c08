import { isMlaDiffError } from '../../errors';
import { sampleBlocks } from '../../test-utils/codec-samples';
import { IQ4_NL_CODEC, Q4_0_CODEC, Q4_1_CODEC, Q5_0_CODEC, Q5_1_CODEC, Q8_0_CODEC } from './codecs-legacy';
import type { Codec } from './ggml-types';

const { abs, max, min } = Math;

/** The f16 just above v ≥ 0 is at most this (relative spacing 2^-10, absolute 2^-24 for subnormals). */
const f16Above = (v: number): number => v * (1 + 2 ** -10) + 2 ** -24;
/** The bound is stored as float32: allow its rounding. */
const STORED = 1 + 2 ** -20;

interface Stats {
  lo: number;
  hi: number;
  amax: number;
}
type Promised = (s: Stats) => number;

/** What each type promises for a block's bound, from the block's min/max alone. */
const symmetric =
  (levels: number): Promised =>
  ({ amax }) =>
    f16Above(amax / levels) / 2;
const affine =
  (levels: number): Promised =>
  ({ lo, hi }) => {
    const u = abs(lo) * 2 ** -10 + 2 ** -24; // m, the f16 at or below lo, is at least lo − u
    const d = f16Above((hi - lo + u) / levels);
    return d / 2 + (abs(lo) + u + levels * d) * 2 ** -22;
  };
const iq4nl: Promised = ({ lo, hi }) => 12 * f16Above(min(max(hi / 113, -lo / 127), max(hi / 127, -lo / 113)));

const CASES: [string, Codec, number, Promised][] = [
  ['Q8_0', Q8_0_CODEC, 34, symmetric(127)],
  ['Q4_0', Q4_0_CODEC, 18, symmetric(7)],
  ['Q5_0', Q5_0_CODEC, 22, symmetric(15)],
  ['Q4_1', Q4_1_CODEC, 20, affine(15)],
  ['Q5_1', Q5_1_CODEC, 24, affine(31)],
  ['IQ4_NL', IQ4_NL_CODEC, 18, iq4nl],
];

/** Blocks whose scale absmax/N lands just above an f16 (1 + 2^-12), so round-to-nearest would undershoot. */
function edgeBlocks(): { name: string; values: Float32Array }[] {
  return [127, 113, 15, 7, 31].flatMap((n) =>
    [1, -1].map((sign) => ({
      name: `edge ${sign * n}`,
      values: Float32Array.from({ length: 32 }, (_, i) => (i === 5 ? sign * n * (1 + 2 ** -12) : (i - 16) / 4)),
    })),
  );
}

const BLOCKS = [...sampleBlocks(1), ...sampleBlocks(2), ...sampleBlocks(3), ...edgeBlocks()];

describe.each(CASES)('%s round trip', (_name, codec, bytes, promise) => {
  const x = new Float32Array(BLOCKS.length * 32);
  BLOCKS.forEach((b, i) => x.set(b.values, 32 * i));
  const q = new Uint8Array(BLOCKS.length * bytes);
  codec.quantize(x, 0, x.length, q, 0);
  const y = new Float32Array(x.length);
  const b = new Float32Array(x.length);
  codec.dequantize(q, 0, y, 0, x.length);
  codec.bound(q, 0, b, 0, x.length);

  it.each(BLOCKS.map((blk, i) => [blk.name, i] as const))('%s (block %i): |x − deq(q(x))| ≤ bound ≤ promise', (_n, i) => {
    const v = x.subarray(32 * i, 32 * i + 32);
    const lo = v.reduce((a, c) => min(a, c), Infinity);
    const hi = v.reduce((a, c) => max(a, c), -Infinity);
    const limit = promise({ lo, hi, amax: max(-lo, hi) }) * STORED;
    for (let j = 32 * i; j < 32 * i + 32; j++) {
      const err = abs(x[j]! - y[j]!);
      if (!(err <= b[j]! && b[j]! <= limit)) {
        throw new Error(`element ${j}: x=${x[j]} y=${y[j]} err=${err} bound=${b[j]} promise=${limit}`);
      }
    }
    if (hi === 0 && lo === 0) {
      expect([...y.subarray(32 * i, 32 * i + 32)].every((e) => e === 0)).toBe(true);
      expect([...b.subarray(32 * i, 32 * i + 32)].every((e) => e === 0)).toBe(true);
    }
  });

  it('the bound is not vacuous: the worst error over gaussian blocks reaches a third of it', () => {
    let worst = 0;
    BLOCKS.forEach((blk, i) => {
      if (!blk.name.startsWith('gaussian')) return;
      for (let j = 32 * i; j < 32 * i + 32; j++) worst = max(worst, abs(x[j]! - y[j]!) / b[j]!);
    });
    expect(worst).toBeGreaterThan(1 / 3);
  });

  it('rejects NaN, ±Infinity and blocks whose scale overflows f16 with invalid-value', () => {
    for (const bad of [NaN, Infinity, -Infinity, 3e7]) {
      const v = new Float32Array(32).fill(1);
      v[9] = bad;
      let code: string | undefined;
      try {
        codec.quantize(v, 0, 32, new Uint8Array(bytes), 0);
      } catch (e) {
        code = isMlaDiffError(e) ? e.code : 'not an MlaDiffError';
      }
      expect(code).toBe('invalid-value');
    }
  });
});
