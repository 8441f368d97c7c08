/**
 * 16-bit float conversions shared by the GGUF and safetensors codecs. Hot loops index the
 * tables below instead of calling Math (a global lookup per element is slow under jest's vm).
 */
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** IEEE binary16 bits → float32, all 65536 values precomputed. */
export const F16_TABLE: Float32Array = (() => {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const s = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const m = h & 0x3ff;
    t[h] = e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15);
  }
  return t;
})();

export const f16ToF32 = (h: number): number => F16_TABLE[h & 0xffff]!;

/** float32 → binary16 bits, round to nearest even (as ggml_compute_fp32_to_fp16 / numpy). */
export function f32ToF16(x: number): number {
  F32[0] = x;
  const u = U32[0]!;
  const sign = (u >>> 16) & 0x8000;
  const e = (u >>> 23) & 0xff;
  let m = u & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (m ? 0x200 : 0);
  let exp = e - 127 + 15;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    m |= 0x800000;
    const shift = 14 - exp;
    const half = 1 << (shift - 1);
    let r = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    if (rest > half || (rest === half && r & 1)) r++;
    return sign | r;
  }
  let r = m >>> 13;
  const rest = m & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && r & 1)) r++;
  if (r === 0x400) {
    r = 0;
    exp++;
    if (exp >= 31) return sign | 0x7c00;
  }
  return sign | (exp << 10) | r;
}

/** bfloat16 bits → float32: the bits are the top half of a float32. */
export function bf16ToF32(h: number): number {
  U32[0] = (h & 0xffff) << 16;
  return F32[0]!;
}

/** float32 → bfloat16 bits, round to nearest even; NaN stays NaN (as torch and ggml do). */
export function f32ToBf16(x: number): number {
  F32[0] = x;
  const u = U32[0]!;
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** Rounds through binary16 and back: the value an F16 tensor stores for x. */
export const roundF16 = (x: number): number => F16_TABLE[f32ToF16(x)]!;
