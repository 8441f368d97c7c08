/**
 * GGUF codecs for the unblocked float types F32, F16 and BF16 (little-endian element arrays).
 * Dequantizing reinterprets the bytes; quantizing rounds to nearest even (half.ts); the bound is
 * 0 for F32 and half an ulp of the stored value for F16/BF16 (Infinity where it stored ±inf/NaN).
 */
import { F16_TABLE, f32ToBf16, f32ToF16 } from '../half';
import type { Codec } from './ggml-types';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Half an f16 ulp per biased exponent: subnormals (e=0) have ulp 2^-24, e=31 is inf/NaN. */
const F16_HALF_ULP: Float64Array = (() => {
  const t = new Float64Array(32);
  for (let e = 0; e < 32; e++) t[e] = e === 0 ? 2 ** -25 : e === 31 ? Infinity : 2 ** (e - 26);
  return t;
})();

/** Half a bf16 ulp per biased exponent: subnormals (e=0) have ulp 2^-133, e=255 is inf/NaN. */
const BF16_HALF_ULP: Float64Array = (() => {
  const t = new Float64Array(256);
  for (let e = 0; e < 256; e++) t[e] = e === 0 ? 2 ** -134 : e === 255 ? Infinity : 2 ** (e - 135);
  return t;
})();

export const F32_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    if (LITTLE_ENDIAN) {
      new Uint8Array(dst.buffer, dst.byteOffset + dstOffset * 4, n * 4).set(src.subarray(srcOffset, srcOffset + n * 4));
      return;
    }
    const view = new DataView(src.buffer, src.byteOffset + srcOffset, n * 4);
    for (let i = 0; i < n; i++) dst[dstOffset + i] = view.getFloat32(i * 4, true);
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    const view = new DataView(dst.buffer, dst.byteOffset + dstOffset, n * 4);
    for (let i = 0; i < n; i++) view.setFloat32(i * 4, src[srcOffset + i]!, true);
  },
  bound(_src, _srcOffset, dst, dstOffset, n) {
    dst.fill(0, dstOffset, dstOffset + n);
  },
};

export const F16_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let i = 0, o = srcOffset; i < n; i++, o += 2) dst[dstOffset + i] = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    for (let i = 0, o = dstOffset; i < n; i++, o += 2) {
      const h = f32ToF16(src[srcOffset + i]!);
      dst[o] = h & 0xff;
      dst[o + 1] = h >>> 8;
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    for (let i = 0, o = srcOffset; i < n; i++, o += 2) dst[dstOffset + i] = F16_HALF_ULP[(src[o + 1]! >>> 2) & 0x1f]!;
  },
};

export const BF16_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    // bf16 bits are the top half of the float32: write them through an integer view of dst.
    const bits = new Uint32Array(dst.buffer, dst.byteOffset, dst.length);
    for (let i = 0, o = srcOffset; i < n; i++, o += 2) bits[dstOffset + i] = (src[o]! | (src[o + 1]! << 8)) << 16;
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    for (let i = 0, o = dstOffset; i < n; i++, o += 2) {
      const h = f32ToBf16(src[srcOffset + i]!);
      dst[o] = h & 0xff;
      dst[o + 1] = h >>> 8;
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    for (let i = 0, o = srcOffset; i < n; i++, o += 2) {
      dst[dstOffset + i] = BF16_HALF_ULP[((src[o + 1]! & 0x7f) << 1) | (src[o]! >>> 7)]!;
    }
  },
};
