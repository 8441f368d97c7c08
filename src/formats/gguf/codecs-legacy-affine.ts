/**
 * GGUF codecs for the affine legacy blocks of 32 (ggml-quants.c dequantize_row_q4_1/q5_1):
 *   Q4_1 {f16 d; f16 m; u8 qs[16]}             y[j] = lo(qs[j])·d + m, y[j+16] = hi(qs[j])·d + m
 *   Q5_1 {f16 d; f16 m; u8 qh[4]; u8 qs[16]}   as Q4_1 with bit 4 of element i in bit i of LE u32 qh
 * Our quantizer takes m = the largest f16 ≤ min and the smallest f16 d with m + N·d ≥ max (N = 15, 31),
 * so nothing is clipped. bound = |d|/2 plus the float32 rounding of the dequantizer's q·d + m,
 * which we cover with (|m| + N·|d|)·2^-22 (at least 4× the worst half-ulp of any grid value).
 */
import { F16_TABLE } from '../half';
import type { Codec } from './ggml-types';
import { affineScaleBits, blockMinMax, readF16, writeF16 } from './codecs-legacy-scales';

const { round, abs } = Math;
const SLACK = 2 ** -22;

/** Writes the affine bound of each block (d at byte 0, m at byte 2) into dst. */
function affineBound(
  src: Uint8Array,
  srcOffset: number,
  dst: Float32Array,
  dstOffset: number,
  n: number,
  bytes: number,
  levels: number,
): void {
  for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += bytes, y += 32) {
    const d = abs(readF16(src, o));
    dst.fill(d / 2 + (abs(readF16(src, o + 2)) + levels * d) * SLACK, y, y + 32);
  }
}

/** Quantizes one block of 32 at x to levels 0..N: writes d, m at o and the levels into q. */
function affineBlock(
  src: Float32Array,
  x: number,
  levels: number,
  dst: Uint8Array,
  o: number,
  mm: Float64Array,
  bits: Uint16Array,
  q: Uint8Array,
): void {
  blockMinMax(src, x, 32, mm);
  affineScaleBits(mm[0]!, mm[1]!, levels, bits);
  writeF16(dst, o, bits[0]!);
  writeF16(dst, o + 2, bits[1]!);
  const d = F16_TABLE[bits[0]!]!;
  const m = F16_TABLE[bits[1]!]!;
  for (let j = 0; j < 32; j++) q[j] = d === 0 ? 0 : round((src[x + j]! - m) / d);
}

export const Q4_1_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 20, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      const m = F16_TABLE[src[o + 2]! | (src[o + 3]! << 8)]!;
      for (let j = 0; j < 16; j++) {
        const b = src[o + 4 + j]!;
        dst[y + j] = (b & 0xf) * d + m;
        dst[y + j + 16] = (b >>> 4) * d + m;
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    const mm = new Float64Array(2);
    const bits = new Uint16Array(2);
    const q = new Uint8Array(32);
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 20) {
      affineBlock(src, x, 15, dst, o, mm, bits, q);
      for (let j = 0; j < 16; j++) dst[o + 4 + j] = q[j]! | (q[j + 16]! << 4);
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    affineBound(src, srcOffset, dst, dstOffset, n, 20, 15);
  },
};

export const Q5_1_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 24, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      const m = F16_TABLE[src[o + 2]! | (src[o + 3]! << 8)]!;
      const qh = src[o + 4]! | (src[o + 5]! << 8) | (src[o + 6]! << 16) | (src[o + 7]! << 24);
      for (let j = 0; j < 16; j++) {
        const b = src[o + 8 + j]!;
        dst[y + j] = ((b & 0xf) | (((qh >>> j) << 4) & 0x10)) * d + m;
        dst[y + j + 16] = ((b >>> 4) | ((qh >>> (j + 12)) & 0x10)) * d + m;
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    const mm = new Float64Array(2);
    const bits = new Uint16Array(2);
    const q = new Uint8Array(32);
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 24) {
      affineBlock(src, x, 31, dst, o, mm, bits, q);
      let qh = 0;
      for (let j = 0; j < 16; j++) {
        dst[o + 8 + j] = (q[j]! & 0xf) | ((q[j + 16]! & 0xf) << 4);
        qh |= ((q[j]! >>> 4) << j) | ((q[j + 16]! >>> 4) << (j + 16));
      }
      dst[o + 4] = qh & 0xff;
      dst[o + 5] = (qh >>> 8) & 0xff;
      dst[o + 6] = (qh >>> 16) & 0xff;
      dst[o + 7] = (qh >>> 24) & 0xff;
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    affineBound(src, srcOffset, dst, dstOffset, n, 24, 31);
  },
};
