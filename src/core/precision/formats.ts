/**
 * Storage formats an engine rounds activations, weights and its KV cache to, and their rounding on
 * the host: IEEE round-to-nearest-even on the float32 bit pattern, subnormals kept, fp16 overflowing
 * to ±inf, fp8 e4m3 saturating to ±448 as vLLM's scaled_fp8_conversion (__NV_SATFINITE) does.
 * The result is float32 holding exactly the stored value, so that the rest of a path computes in fp32.
 */
import type { StageDtype, StorageDtype } from '../../trace';

/** The storage formats and a stage's dtype as a path keeps it (float32 or one of them): src/trace/precision.ts. */
export type { StageDtype, StorageDtype } from '../../trace';
export { STORAGE_DTYPES } from '../../trace';

/** Mantissa bits, smallest normal exponent and largest finite value of each format. */
export interface FormatSpec {
  mantissa: number;
  emin: number;
  max: number;
  /** What a value past `max` becomes: ±inf (IEEE) or ±max (saturating conversion). */
  overflow: 'inf' | 'saturate';
  /** Short label in tables. */
  short: string;
}

export const FORMATS: Record<StorageDtype, FormatSpec> = {
  bfloat16: { mantissa: 7, emin: -126, max: 3.3895313892515355e38, overflow: 'inf', short: 'bf16' },
  float16: { mantissa: 10, emin: -14, max: 65504, overflow: 'inf', short: 'fp16' },
  fp8_e4m3: { mantissa: 3, emin: -6, max: 448, overflow: 'saturate', short: 'fp8' },
};

export const shortDtype = (d: StageDtype): string => (d === 'float32' ? 'fp32' : FORMATS[d].short);

/** Unit roundoff 2^-(mantissa+1): the largest relative error of one rounding of a normal value. */
export const unitRoundoff = (d: StageDtype): number => (d === 'float32' ? 2 ** -24 : 2 ** -(FORMATS[d].mantissa + 1));

/**
 * Rounds every element of `src` to `dtype` and writes the float32 value of the result to `dst`
 * (which may be `src`). Returns the count of finite inputs past the format's range: values that
 * rounded past the largest finite value and became ±inf (fp16, bf16) or were clamped to
 * ±max (fp8 e4m3).
 */
export function roundInto(src: Float32Array, dst: Float32Array, dtype: StorageDtype): number {
  const f = FORMATS[dtype];
  const s = new Uint32Array(src.buffer, src.byteOffset, src.length);
  const d = new Uint32Array(dst.buffer, dst.byteOffset, dst.length);
  const shift = 23 - f.mantissa;
  const half = (1 << (shift - 1)) - 1;
  const keep = ~((1 << shift) - 1) >>> 0;
  const minExp = f.emin + 127; // biased float32 exponent of the format's smallest normal
  const quantum = 2 ** (f.emin - f.mantissa); // spacing of the format's subnormals
  const maxBits = new Uint32Array(new Float32Array([f.max]).buffer)[0]!;
  const floor = Math.floor;
  const one = new Float32Array(1);
  const oneBits = new Uint32Array(one.buffer);
  let past = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s[i]!;
    const sign = u & 0x80000000;
    const a = u & 0x7fffffff;
    if (a > 0x7f800000) {
      d[i] = (u | 0x00400000) >>> 0;
      continue;
    } // NaN stays a (quiet) NaN
    if (a === 0x7f800000) {
      d[i] = f.overflow === 'inf' ? u : (sign | maxBits) >>> 0;
      continue;
    } // ±inf
    let r: number;
    if (a >>> 23 >= minExp) {
      r = ((a + half + ((a >>> shift) & 1)) & keep) >>> 0; // round half to even on the bits
    } else {
      const v = src[i]! < 0 ? -src[i]! / quantum : src[i]! / quantum; // exact: a power-of-two scaling
      let n = floor(v);
      const rest = v - n;
      if (rest > 0.5 || (rest === 0.5 && (n & 1) === 1)) n += 1;
      one[0] = n * quantum;
      d[i] = (sign | oneBits[0]!) >>> 0;
      continue;
    }
    if (r > maxBits) {
      past++;
      r = f.overflow === 'inf' ? 0x7f800000 : maxBits;
    }
    d[i] = (sign | r) >>> 0;
  }
  return past;
}

/** A rounded copy of `src`. */
export function roundArray(src: Float32Array, dtype: StorageDtype): Float32Array {
  const out = new Float32Array(src.length);
  roundInto(src, out, dtype);
  return out;
}

/**
 * Where rounding to `dtype` leaves the finite range: |x| beyond the tie point between max and the
 * next power of the format's spacing. IEEE formats (max with an odd mantissa) round that tie up, to
 * inf; e4m3's max 448 has an even mantissa, so 464 still rounds down to it.
 */
export function overflowPoint(dtype: StorageDtype): { at: number; inclusive: boolean } {
  const f = FORMATS[dtype];
  const ulp = 2 ** (Math.floor(Math.log2(f.max)) - f.mantissa);
  const mantissaOdd = Math.round(f.max / ulp) % 2 === 1;
  return { at: f.max + ulp / 2, inclusive: mantissaOdd };
}
