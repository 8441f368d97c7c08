import type { StorageDtype } from './formats';

/**
 * Reference rounding, independent of roundInto's bit arithmetic: every bit pattern of a format is
 * decoded to its float64 value, the finite ones sorted, and an input rounded to the nearest of them
 * by binary search, a tie going to the neighbour whose bit pattern is even. Slow but obviously
 * right; the tests and the rounding benchmark hold every device's Runtime.round against it.
 */
interface Layout {
  exponentBits: number;
  mantissaBits: number;
  bias: number;
  /** IEEE: all-ones exponent is inf/NaN. fn (e4m3fn): only S.1111.111 is NaN, no inf. */
  specials: 'ieee' | 'fn';
}

const LAYOUTS: Record<StorageDtype, Layout> = {
  bfloat16: { exponentBits: 8, mantissaBits: 7, bias: 127, specials: 'ieee' },
  float16: { exponentBits: 5, mantissaBits: 10, bias: 15, specials: 'ieee' },
  fp8_e4m3: { exponentBits: 4, mantissaBits: 3, bias: 7, specials: 'fn' },
};

/** One format's positive finite values in ascending order, with the pattern each came from. */
export interface Oracle {
  dtype: StorageDtype;
  mantissaBits: number;
  /** Ascending positive finite values, 0 first. */
  values: Float64Array;
  /** The bit pattern (sign clear) of each value. */
  patterns: Uint32Array;
  /**
   * The first pattern past the finite ones (IEEE: +inf; fn: the NaN pattern) read as if it were
   * finite: the neighbour above max that a value rounding past max lands on.
   */
  beyond: { value: number; pattern: number };
  /** What an overflowing value becomes: inf (IEEE) or max (fn formats saturate). */
  overflow: 'inf' | 'saturate';
}

/** The value of a sign-clear pattern, special meanings ignored (the exponent field read as a number). */
function decode(p: number, l: Layout): number {
  const e = p >>> l.mantissaBits;
  const m = p & ((1 << l.mantissaBits) - 1);
  return e === 0 ? m * 2 ** (1 - l.bias - l.mantissaBits) : (2 ** l.mantissaBits + m) * 2 ** (e - l.bias - l.mantissaBits);
}

export function buildOracle(dtype: StorageDtype): Oracle {
  const l = LAYOUTS[dtype];
  const count = 2 ** (l.exponentBits + l.mantissaBits); // sign-clear patterns
  const allOnes = (2 ** l.exponentBits - 1) * 2 ** l.mantissaBits;
  const finite = (p: number) => (l.specials === 'ieee' ? p < allOnes : p !== count - 1);
  const entries: { value: number; pattern: number }[] = [];
  for (let p = 0; p < count; p++) if (finite(p)) entries.push({ value: decode(p, l), pattern: p });
  entries.sort((a, b) => a.value - b.value);
  const beyondPattern = l.specials === 'ieee' ? allOnes : count - 1;
  return {
    dtype,
    mantissaBits: l.mantissaBits,
    values: Float64Array.from(entries, (e) => e.value),
    patterns: Uint32Array.from(entries, (e) => e.pattern),
    beyond: { value: decode(beyondPattern, l), pattern: beyondPattern },
    overflow: l.specials === 'ieee' ? 'inf' : 'saturate',
  };
}

/** A rounded value and whether it left the finite range (a finite input past the overflow point). */
export interface OracleResult {
  value: number;
  overflowed: boolean;
}

/** Rounds one value (a float32 read as float64) to the format; the result is exact in float32. */
export function oracleRound(o: Oracle, x: number): OracleResult {
  if (Number.isNaN(x)) return { value: NaN, overflowed: false };
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  const max = o.values[o.values.length - 1]!;
  const overflowTo = o.overflow === 'inf' ? Infinity : max;
  const signed = (v: number) => (negative ? -v : v);
  if (a === Infinity) return { value: signed(overflowTo), overflowed: false };
  if (a > max) {
    const mid = (max + o.beyond.value) / 2;
    const up = a > mid || (a === mid && o.beyond.pattern % 2 === 0);
    return up ? { value: signed(overflowTo), overflowed: true } : { value: signed(max), overflowed: false };
  }
  // Largest i with values[i] <= a.
  let lo = 0;
  let hi = o.values.length - 1;
  while (lo < hi) {
    const m = (lo + hi + 1) >>> 1;
    if (o.values[m]! <= a) lo = m;
    else hi = m - 1;
  }
  const below = o.values[lo]!;
  if (below === a) return { value: signed(a), overflowed: false };
  const above = o.values[lo + 1]!;
  const mid = (below + above) / 2; // exact: both are float32 values of nearby magnitude
  const up = a > mid || (a === mid && o.patterns[lo + 1]! % 2 === 0);
  return { value: signed(up ? above : below), overflowed: false };
}

/** The oracle over a whole array: float32 results and the count of overflowing finite inputs. */
export function oracleRoundArray(o: Oracle, src: Float32Array): { out: Float32Array; overflowed: number } {
  const out = new Float32Array(src.length);
  let overflowed = 0;
  for (let i = 0; i < src.length; i++) {
    const r = oracleRound(o, src[i]!);
    out[i] = r.value;
    if (r.overflowed) overflowed++;
  }
  return { out, overflowed };
}

/** Where the oracle leaves the finite range: the tie between max and the pattern beyond it. */
export function oracleOverflowPoint(o: Oracle): { at: number; inclusive: boolean } {
  const max = o.values[o.values.length - 1]!;
  return { at: (max + o.beyond.value) / 2, inclusive: o.beyond.pattern % 2 === 0 };
}
