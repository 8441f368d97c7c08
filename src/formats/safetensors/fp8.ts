/**
 * FP8 codecs. E4M3FN (torch.float8_e4m3fn, safetensors F8_E4M3): 1 sign, 4 exponent bits (bias 7),
 * 3 mantissa bits; e=0 → (−1)^s·2^−6·m/8 (subnormal), else (−1)^s·2^(e−7)·(1+m/8); S.1111.111 is
 * NaN; there is no infinity; the largest finite value is 448 (0x7E).
 *
 * Encoding (`f32ToE4M3`) rounds to nearest, ties to even, in double precision (no intermediate
 * float32 rounding), and SATURATES: every |x| ≥ 448 (±Infinity included) becomes ±448, as the
 * DeepSeek-V3 quantizer's x/s is never above 448 anyway. NaN → 0x7F, −0 → 0x80.
 */
const floor = Math.floor;
const log2 = Math.log2;

export const E4M3_MAX = 448;

/** 2^k for k in [−24, 24], indexed by k + 24 (exact doubles). */
const POW2: Float64Array = (() => {
  const t = new Float64Array(49);
  for (let k = -24; k <= 24; k++) t[k + 24] = 2 ** k;
  return t;
})();

/** All 256 E4M3FN bytes → float32. */
export const E4M3_TABLE: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let b = 0; b < 256; b++) {
    const s = b & 0x80 ? -1 : 1;
    const e = (b >> 3) & 0xf;
    const m = b & 7;
    t[b] = (b & 0x7f) === 0x7f ? NaN : e === 0 ? s * 2 ** -6 * (m / 8) : s * 2 ** (e - 7) * (1 + m / 8);
  }
  return t;
})();

/**
 * Half the distance from each E4M3FN value to the next larger-magnitude one: 2^(max(e,1)−11).
 * A value that rounded to the stored byte lies within this of it (below a power of two the gap is
 * smaller, so this is the larger of the two half-gaps). NaN for the NaN bytes.
 */
export const E4M3_HALF_SPACING: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let b = 0; b < 256; b++) {
    const e = (b >> 3) & 0xf;
    t[b] = (b & 0x7f) === 0x7f ? NaN : 2 ** ((e === 0 ? 1 : e) - 11);
  }
  return t;
})();

export const e4m3ToF32 = (b: number): number => E4M3_TABLE[b & 0xff]!;

/** Round to the nearest integer, ties to even (t ≥ 0, small). */
function roundEven(t: number): number {
  let r = floor(t);
  const d = t - r;
  if (d > 0.5 || (d === 0.5 && (r & 1) === 1)) r++;
  return r;
}

/** number → E4M3FN byte: round to nearest even, saturate to ±448, NaN → 0x7F. */
export function f32ToE4M3(x: number): number {
  if (x !== x) return 0x7f;
  const sign = x < 0 || (x === 0 && 1 / x < 0) ? 0x80 : 0;
  const a = sign ? -x : x;
  if (a >= E4M3_MAX) return sign | 0x7e;
  // Subnormals (and the rounding up into 2^−6 = 0x08): units of 2^−9.
  if (a < 0.015625) return sign | roundEven(a * 512);
  let e = floor(log2(a));
  if (a < POW2[e + 24]!) e--;
  else if (a >= POW2[e + 25]!) e++;
  // a·2^(3−e) ∈ [8, 16) exactly; a carry to 16 moves into the next exponent by plain addition.
  const r = roundEven(a * POW2[3 - e + 24]!);
  return sign | (((e + 7) << 3) + (r - 8));
}

/** F8_E8M0 (UE8M0 scales) byte → 2^(e−127), all 256 precomputed; 0xFF is NaN. */
export const E8M0_TABLE: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let b = 0; b < 256; b++) t[b] = b === 0xff ? NaN : 2 ** (b - 127);
  return t;
})();
