/**
 * GGUF codecs for the symmetric legacy blocks of 32 (ggml-quants.c dequantize_row_q8_0/q4_0/q5_0):
 *   Q8_0 {f16 d; i8 qs[32]}            y = qs·d
 *   Q4_0 {f16 d; u8 qs[16]}            y[j] = (lo(qs[j]) − 8)·d, y[j+16] = (hi(qs[j]) − 8)·d
 *   Q5_0 {f16 d; u8 qh[4]; u8 qs[16]}  as Q4_0 with bit 4 of element i in bit i of LE u32 qh, −16
 * Our quantizers are symmetric (d = absmax/N for N = 127, 7, 15, never clipping) with bound d/2.
 * The affine types and IQ4_NL live in codecs-legacy-affine.ts / codecs-iq4nl.ts, re-exported here.
 */
import { F16_TABLE } from '../half';
import type { Codec } from './ggml-types';
import { blockAbsMax, fillScaleBound, symmetricScaleBits, writeF16 } from './codecs-legacy-scales';

export { Q4_1_CODEC, Q5_1_CODEC } from './codecs-legacy-affine';
export { IQ4_NL_CODEC } from './codecs-iq4nl';

const { round } = Math;

export const Q8_0_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 34, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      for (let j = 0; j < 32; j++) dst[y + j] = ((src[o + 2 + j]! << 24) >> 24) * d;
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 34) {
      const h = symmetricScaleBits(blockAbsMax(src, x, 32), 127);
      const d = F16_TABLE[h]!;
      writeF16(dst, o, h);
      for (let j = 0; j < 32; j++) dst[o + 2 + j] = h === 0 ? 0 : round(src[x + j]! / d) & 0xff;
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    fillScaleBound(src, srcOffset, dst, dstOffset, n, 34, 0.5);
  },
};

export const Q4_0_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 18, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      for (let j = 0; j < 16; j++) {
        const b = src[o + 2 + j]!;
        dst[y + j] = ((b & 0xf) - 8) * d;
        dst[y + j + 16] = ((b >>> 4) - 8) * d;
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 18) {
      const h = symmetricScaleBits(blockAbsMax(src, x, 32), 7);
      const d = F16_TABLE[h]!;
      writeF16(dst, o, h);
      for (let j = 0; j < 16; j++) {
        const lo = h === 0 ? 8 : round(src[x + j]! / d) + 8;
        const hi = h === 0 ? 8 : round(src[x + j + 16]! / d) + 8;
        dst[o + 2 + j] = lo | (hi << 4);
      }
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    fillScaleBound(src, srcOffset, dst, dstOffset, n, 18, 0.5);
  },
};

export const Q5_0_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 22, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      const qh = src[o + 2]! | (src[o + 3]! << 8) | (src[o + 4]! << 16) | (src[o + 5]! << 24);
      for (let j = 0; j < 16; j++) {
        const b = src[o + 6 + j]!;
        dst[y + j] = (((b & 0xf) | (((qh >>> j) << 4) & 0x10)) - 16) * d;
        dst[y + j + 16] = (((b >>> 4) | ((qh >>> (j + 12)) & 0x10)) - 16) * d;
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 22) {
      const h = symmetricScaleBits(blockAbsMax(src, x, 32), 15);
      const d = F16_TABLE[h]!;
      writeF16(dst, o, h);
      let qh = 0;
      for (let j = 0; j < 16; j++) {
        const lo = h === 0 ? 16 : round(src[x + j]! / d) + 16;
        const hi = h === 0 ? 16 : round(src[x + j + 16]! / d) + 16;
        dst[o + 6 + j] = (lo & 0xf) | ((hi & 0xf) << 4);
        qh |= ((lo >>> 4) << j) | ((hi >>> 4) << (j + 16));
      }
      dst[o + 2] = qh & 0xff;
      dst[o + 3] = (qh >>> 8) & 0xff;
      dst[o + 4] = (qh >>> 16) & 0xff;
      dst[o + 5] = (qh >>> 24) & 0xff;
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    fillScaleBound(src, srcOffset, dst, dstOffset, n, 22, 0.5);
  },
};
