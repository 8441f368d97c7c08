import type { Oracle } from './oracle';
import { oracleOverflowPoint } from './oracle';

/**
 * Inputs that test a rounding where it is easiest to get wrong, and a seeded random set: shared by
 * the tests of every device and the rounding benchmark.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export const fromBits = (bits: number): number => {
  u32[0] = bits >>> 0;
  return f32[0]!;
};
export const bitsOf = (x: number): number => {
  f32[0] = x;
  return u32[0]!;
};

/** The float32 neighbours of a float32 value x (x itself excluded), toward 0 and away from it. */
function neighbours(x: number): number[] {
  const b = bitsOf(x);
  return b === 0 ? [fromBits(1)] : [fromBits(b - 1), fromBits(b + 1)];
}

/** Exact ties and their float32 neighbours between consecutive format values lo..hi (indices). */
function tiesIn(o: Oracle, from: number, to: number, out: number[]): void {
  for (let i = Math.max(0, from); i < Math.min(to, o.values.length - 1); i++) {
    const lo = o.values[i]!;
    const hi = o.values[i + 1]!;
    const mid = (lo + hi) / 2;
    out.push(lo, hi);
    if (Math.fround(mid) === mid) out.push(mid, ...neighbours(mid));
  }
}

/**
 * Every format value's tie with its neighbour in the subnormal range and across the
 * normal/subnormal boundary, near 1 and near max; ±0; the smallest and largest subnormals of the
 * format and of float32; ±max and the overflow point with its neighbours; ±inf; NaNs. Each with both signs.
 */
export function edgeValues(o: Oracle): Float32Array {
  const v: number[] = [0];
  const n = o.values.length;
  const firstNormal = 2 ** o.mantissaBits; // 0, then 2^m - 1 subnormals
  tiesIn(o, 0, firstNormal + 64, v);
  const one = o.values.indexOf(1);
  tiesIn(o, one - 64, one + 64, v);
  tiesIn(o, n - 65, n - 1, v);
  const max = o.values[n - 1]!;
  const over = oracleOverflowPoint(o);
  v.push(max, ...neighbours(max), o.beyond.value, over.at, ...neighbours(over.at), 2 * max, 3.4028234663852886e38);
  v.push(o.values[1]!, o.values[1]! / 2, ...neighbours(o.values[1]! / 2), o.values[firstNormal - 1]!, o.values[firstNormal]!);
  v.push(fromBits(1), fromBits(2), fromBits(3), fromBits(0x007fffff), fromBits(0x00800000), fromBits(0x00800001));
  v.push(Infinity);
  const finite = Float32Array.from(v.filter((x) => Math.fround(x) === x || !Number.isFinite(x)));
  const out = new Float32Array(finite.length * 2 + 6);
  out.set(finite);
  for (let i = 0; i < finite.length; i++) out[finite.length + i] = -finite[i]!;
  const nans = [0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0x7fa00000];
  new Uint32Array(out.buffer).set(nans, finite.length * 2);
  return out;
}

/**
 * `count` float32 bit patterns from a seeded generator: a quarter fully random (every exponent,
 * NaNs and infs included), the rest with exponents spread over the format's range and 30 binades
 * either side, and random signs and mantissas.
 */
export function randomValues(o: Oracle, count: number, seed = 1): Float32Array {
  let s = seed >>> 0;
  const next = (): number => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const lowExp = Math.max(0, bitsOf(o.values[1]!) >>> 23) - 30;
  const highExp = (bitsOf(o.values[o.values.length - 1]!) >>> 23) + 30;
  const span = Math.min(255, highExp) - Math.max(0, lowExp) + 1;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const r = next();
    if (i % 4 === 0) {
      out[i] = r;
      continue;
    }
    const e = Math.max(0, lowExp) + (next() % span);
    out[i] = ((r & 0x80000000) | (e << 23) | (r & 0x7fffff)) >>> 0;
  }
  return new Float32Array(out.buffer);
}

/** Where two float32 arrays differ bit for bit (any NaN matches any NaN). */
export interface BitMismatch {
  index: number;
  input: number;
  got: number;
  want: number;
}

export function bitMismatches(
  input: Float32Array,
  got: Float32Array,
  want: Float32Array,
  limit = 8,
): { count: number; first: BitMismatch[] } {
  const g = new Uint32Array(got.buffer, got.byteOffset, got.length);
  const w = new Uint32Array(want.buffer, want.byteOffset, want.length);
  const first: BitMismatch[] = [];
  let count = 0;
  for (let i = 0; i < input.length; i++) {
    if (g[i] === w[i] || (Number.isNaN(got[i]) && Number.isNaN(want[i]))) continue;
    count++;
    if (first.length < limit) first.push({ index: i, input: bitsOf(input[i]!), got: g[i]!, want: w[i]! });
  }
  return { count, first };
}
