/**
 * Q4_K {f16 d; f16 dmin; u8 scales[12]; u8 qs[128]} (144 B) and
 * Q5_K {f16 d; f16 dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]} (176 B): ggml-quants.c
 * dequantize_row_q4_K / dequantize_row_q5_K. 8 sub-blocks of 32 with 6-bit scale and min
 * (get_scale_min_k4). Chunk c (64 values) takes qs[32c..32c+32): low nibbles are sub-block 2c, high
 * nibbles 2c+1. Q5_K's fifth bit of sub-block s, position l is qh[l] bit s (qh is not advanced).
 */
import type { Codec } from './ggml-types';
import { fitAffine, newFit, type KFit } from './kquant-fit';
import { readF16, writeF16 } from './codecs-legacy-scales';
import { checkSuperBlocks, fillBound, minK4, packScaleMinK4, scaleK4 } from './kquant-scales';

const { abs, max } = Math;

/** Dequantizes Q4_K (qh < 0) or Q5_K (qh = byte offset of qh[32] inside the block). */
function dequantK(src: Uint8Array, so: number, dst: Float32Array, dO: number, n: number, bytes: number, qh: number): void {
  const qsAt = qh < 0 ? 16 : 48;
  for (let o = so, y = dO, end = dO + n; y < end; o += bytes) {
    const d = readF16(src, o);
    const dmin = readF16(src, o + 2);
    for (let c = 0; c < 4; c++, y += 64) {
      const d1 = d * scaleK4(src, o + 4, 2 * c);
      const m1 = dmin * minK4(src, o + 4, 2 * c);
      const d2 = d * scaleK4(src, o + 4, 2 * c + 1);
      const m2 = dmin * minK4(src, o + 4, 2 * c + 1);
      const q = o + qsAt + 32 * c;
      if (qh < 0) {
        for (let l = 0; l < 32; l++) {
          const v = src[q + l]!;
          dst[y + l] = d1 * (v & 0xf) - m1;
          dst[y + 32 + l] = d2 * (v >> 4) - m2;
        }
      } else {
        const u1 = 1 << (2 * c);
        const u2 = 2 << (2 * c);
        const h = o + qh;
        for (let l = 0; l < 32; l++) {
          const v = src[q + l]!;
          const hb = src[h + l]!;
          dst[y + l] = d1 * ((v & 0xf) + (hb & u1 ? 16 : 0)) - m1;
          dst[y + 32 + l] = d2 * ((v >> 4) + (hb & u2 ? 16 : 0)) - m2;
        }
      }
    }
  }
}

function quantK(src: Float32Array, so: number, n: number, dst: Uint8Array, dO: number, bytes: number, q5: boolean): void {
  const f: KFit = newFit();
  const nmax = q5 ? 31 : 15;
  const qsAt = q5 ? 48 : 16;
  for (let x = so, o = dO, end = so + n; x < end; x += 256, o += bytes) {
    fitAffine(src, x, 32, 8, nmax, 63, f);
    const L = f.L;
    writeF16(dst, o, f.dBits);
    writeF16(dst, o + 2, f.dminBits);
    packScaleMinK4(f.k, f.m, dst, o + 4);
    if (q5) {
      for (let l = 0; l < 32; l++) {
        let hb = 0;
        for (let s = 0; s < 8; s++) hb |= (L[32 * s + l]! >> 4) << s;
        dst[o + 16 + l] = hb;
      }
    }
    for (let c = 0; c < 4; c++) {
      for (let l = 0; l < 32; l++) {
        dst[o + qsAt + 32 * c + l] = (L[64 * c + l]! & 0xf) | ((L[64 * c + 32 + l]! & 0xf) << 4);
      }
    }
  }
}

function boundK(src: Uint8Array, so: number, dst: Float32Array, dO: number, n: number, bytes: number, nmax: number): void {
  for (let o = so, y = dO, end = dO + n; y < end; o += bytes) {
    const d = readF16(src, o);
    const dmin = readF16(src, o + 2);
    for (let j = 0; j < 8; j++, y += 32) {
      const s = d * scaleK4(src, o + 4, j);
      const m = dmin * minK4(src, o + 4, j);
      fillBound(dst, y, 32, s / 2, max(m, abs(nmax * s - m)));
    }
  }
}

export const Q4_K_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q4_K');
    dequantK(src, srcOffset, dst, dstOffset, n, 144, -1);
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'Q4_K');
    quantK(src, srcOffset, n, dst, dstOffset, 144, false);
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q4_K');
    boundK(src, srcOffset, dst, dstOffset, n, 144, 15);
  },
};

export const Q5_K_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q5_K');
    dequantK(src, srcOffset, dst, dstOffset, n, 176, 16);
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'Q5_K');
    quantK(src, srcOffset, n, dst, dstOffset, 176, true);
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q5_K');
    boundK(src, srcOffset, dst, dstOffset, n, 176, 31);
  },
};
