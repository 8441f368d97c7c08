/**
 * Q2_K {u8 scales[16]; u8 qs[64]; f16 d; f16 dmin} (84 B) and
 * Q3_K {u8 hmask[32]; u8 qs[64]; u8 scales[12]; f16 d} (110 B): ggml-quants.c dequantize_row_q2_K /
 * dequantize_row_q3_K. Both hold 16 sub-blocks of 16; the 2-bit qs of element e (per 128-half n,
 * j = 0..3, l = 0..31) sit at qs[32n + l] bits 2j; Q3_K's third bit at hmask[e % 32] bit e / 32.
 */
import type { Codec } from './ggml-types';
import { fitAffine, fitSymmetric, newFit, uniformLevels, type KFit } from './kquant-fit';
import { readF16, writeF16 } from './codecs-legacy-scales';
import { checkSuperBlocks, fillBound, packQ3Scales, unpackQ3Scales } from './kquant-scales';

const { abs, max } = Math;

/** The 2-bit planes of 256 levels (0..3) into qs[64] at b[o] (quantize_row_q2_K_ref's packing). */
function pack2(L: Int32Array, b: Uint8Array, o: number): void {
  for (let n = 0; n < 2; n++) {
    for (let l = 0; l < 32; l++) {
      const e = 128 * n + l;
      b[o + 32 * n + l] = (L[e]! & 3) | ((L[e + 32]! & 3) << 2) | ((L[e + 64]! & 3) << 4) | ((L[e + 96]! & 3) << 6);
    }
  }
}

export const Q2_K_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q2_K');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 84) {
      const d = readF16(src, o + 80);
      const dmin = readF16(src, o + 82);
      let is = o;
      for (let q = o + 16; q < o + 80; q += 32) {
        for (let shift = 0; shift < 8; shift += 2) {
          let sc = src[is++]!;
          let dl = d * (sc & 0xf);
          let ml = dmin * (sc >> 4);
          for (let l = 0; l < 16; l++) dst[y++] = dl * ((src[q + l]! >> shift) & 3) - ml;
          sc = src[is++]!;
          dl = d * (sc & 0xf);
          ml = dmin * (sc >> 4);
          for (let l = 16; l < 32; l++) dst[y++] = dl * ((src[q + l]! >> shift) & 3) - ml;
        }
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'Q2_K');
    const f: KFit = newFit();
    for (let x = srcOffset, o = dstOffset, end = srcOffset + n; x < end; x += 256, o += 84) {
      fitAffine(src, x, 16, 16, 3, 15, f);
      for (let j = 0; j < 16; j++) dst[o + j] = f.k[j]! | (f.m[j]! << 4);
      pack2(f.L, dst, o + 16);
      writeF16(dst, o + 80, f.dBits);
      writeF16(dst, o + 82, f.dminBits);
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q2_K');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 84) {
      const d = readF16(src, o + 80);
      const dmin = readF16(src, o + 82);
      for (let j = 0; j < 16; j++, y += 16) {
        const s = d * (src[o + j]! & 0xf);
        const m = dmin * (src[o + j]! >> 4);
        fillBound(dst, y, 16, s / 2, max(m, abs(3 * s - m)));
      }
    }
  },
};

export const Q3_K_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q3_K');
    const scales = new Int32Array(16);
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 110) {
      const d = readF16(src, o + 108);
      unpackQ3Scales(src, o + 96, scales);
      let is = 0;
      let bit = 0; // hmask bit m = 1 << bit; q2 − (h ? 0 : 4) = (q2 | h << 2) − 4
      for (let q = o + 32; q < o + 96; q += 32) {
        for (let shift = 0; shift < 8; shift += 2, bit++) {
          let dl = d * scales[is++]!;
          for (let l = 0; l < 16; l++) dst[y++] = dl * ((((src[q + l]! >> shift) & 3) | (((src[o + l]! >> bit) & 1) << 2)) - 4);
          dl = d * scales[is++]!;
          for (let l = 16; l < 32; l++) dst[y++] = dl * ((((src[q + l]! >> shift) & 3) | (((src[o + l]! >> bit) & 1) << 2)) - 4);
        }
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'Q3_K');
    const f: KFit = newFit();
    const signed = new Int32Array(16);
    for (let x = srcOffset, o = dstOffset, end = srcOffset + n; x < end; x += 256, o += 110) {
      fitSymmetric(src, x, 16, 16, 4, 3, 31, f);
      uniformLevels(src, x, 16, 16, 4, 3, f);
      const L = f.L;
      dst.fill(0, o, o + 32);
      for (let e = 0; e < 256; e++) {
        const u = L[e]! + 4; // 0..7: bit 2 → hmask, bits 0..1 → qs
        if (u & 4) dst[o + (e & 31)]! |= 1 << (e >> 5);
        L[e] = u & 3;
      }
      pack2(L, dst, o + 32);
      for (let j = 0; j < 16; j++) signed[j] = f.k[j]! * f.m[j]!;
      packQ3Scales(signed, dst, o + 96);
      writeF16(dst, o + 108, f.dBits);
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q3_K');
    const scales = new Int32Array(16);
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 110) {
      const d = readF16(src, o + 108);
      unpackQ3Scales(src, o + 96, scales);
      for (let j = 0; j < 16; j++, y += 16) {
        const s = abs(d * scales[j]!);
        fillBound(dst, y, 16, s / 2, 4 * s);
      }
    }
  },
};
