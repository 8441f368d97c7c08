/**
 * Q6_K {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d} (210 B) and
 * IQ4_XS {f16 d; u16 scales_h; u8 scales_l[4]; u8 qs[128]} (136 B): ggml-quants.c
 * dequantize_row_q6_K / dequantize_row_iq4_xs.
 * Q6_K: per 128-half n, position l < 32 and quarter k: 4 low bits in ql[64n + l + 32(k&1)]
 * (low nibble for k < 2), 2 high bits at qh[32n + l] bits 2k, q − 32, scale index = element / 16.
 * IQ4_XS: 8 sub-blocks of 32 with 6-bit ls (low nibble in scales_l, top 2 bits in scales_h),
 * y = d·(ls − 32)·KV[nibble] on the non-uniform IQ4_NL grid KV.
 */
import { F16_TABLE } from '../half';
import { IQ4_NL_HALF_GAP, IQ4_NL_MIDS, IQ4_NL_VALUES } from './codecs-iq4nl';
import type { Codec } from './ggml-types';
import { fitSymmetric, newFit, uniformLevels, type KFit } from './kquant-fit';
import { readF16, writeF16 } from './codecs-legacy-scales';
import { checkSuperBlocks, fillBound } from './kquant-scales';

const { abs } = Math;

/** kvalues_iq4nl (ggml-common.h), its midpoints and half its largest gap: shared with IQ4_NL. */
const KV = IQ4_NL_VALUES;
const MIDS = IQ4_NL_MIDS;
const KV_HALF_GAP = IQ4_NL_HALF_GAP;

export const Q6_K_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q6_K');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 210) {
      const d = readF16(src, o + 208);
      for (let h = 0; h < 2; h++, y += 128) {
        const ql = o + 64 * h;
        const qh = o + 128 + 32 * h;
        const sc = o + 192 + 8 * h;
        for (let l = 0; l < 32; l++) {
          const is = sc + (l >> 4);
          const a = src[ql + l]!;
          const b = src[ql + l + 32]!;
          const hb = src[qh + l]!;
          dst[y + l] = d * ((src[is]! << 24) >> 24) * (((a & 0xf) | ((hb & 3) << 4)) - 32);
          dst[y + l + 32] = d * ((src[is + 2]! << 24) >> 24) * (((b & 0xf) | (((hb >> 2) & 3) << 4)) - 32);
          dst[y + l + 64] = d * ((src[is + 4]! << 24) >> 24) * (((a >> 4) | (((hb >> 4) & 3) << 4)) - 32);
          dst[y + l + 96] = d * ((src[is + 6]! << 24) >> 24) * (((b >> 4) | (((hb >> 6) & 3) << 4)) - 32);
        }
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'Q6_K');
    const f: KFit = newFit();
    for (let x = srcOffset, o = dstOffset, end = srcOffset + n; x < end; x += 256, o += 210) {
      fitSymmetric(src, x, 16, 16, 32, 31, 127, f);
      uniformLevels(src, x, 16, 16, 32, 31, f);
      const L = f.L;
      for (let h = 0; h < 2; h++) {
        for (let l = 0; l < 32; l++) {
          const e = 128 * h + l;
          const u1 = L[e]! + 32;
          const u2 = L[e + 32]! + 32;
          const u3 = L[e + 64]! + 32;
          const u4 = L[e + 96]! + 32;
          dst[o + 64 * h + l] = (u1 & 0xf) | ((u3 & 0xf) << 4);
          dst[o + 64 * h + 32 + l] = (u2 & 0xf) | ((u4 & 0xf) << 4);
          dst[o + 128 + 32 * h + l] = (u1 >> 4) | ((u2 >> 4) << 2) | ((u3 >> 4) << 4) | ((u4 >> 4) << 6);
        }
      }
      for (let j = 0; j < 16; j++) dst[o + 192 + j] = (f.k[j]! * f.m[j]!) & 0xff;
      writeF16(dst, o + 208, f.dBits);
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'Q6_K');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 210) {
      const d = readF16(src, o + 208);
      for (let j = 0; j < 16; j++, y += 16) {
        const s = abs(d * ((src[o + 192 + j]! << 24) >> 24));
        fillBound(dst, y, 16, s / 2, 32 * s);
      }
    }
  },
};

/** ls − 32 of IQ4_XS sub-block ib from the block at b[o]. */
const iq4xsScale = (b: Uint8Array, o: number, ib: number): number =>
  (((b[o + 4 + (ib >> 1)]! >> (4 * (ib & 1))) & 0xf) | ((((b[o + 2]! | (b[o + 3]! << 8)) >> (2 * ib)) & 3) << 4)) - 32;

export const IQ4_XS_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'IQ4_XS');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 136) {
      const d = readF16(src, o);
      for (let ib = 0, qs = o + 8; ib < 8; ib++, qs += 16, y += 32) {
        const dl = d * iq4xsScale(src, o, ib);
        for (let j = 0; j < 16; j++) {
          const v = src[qs + j]!;
          dst[y + j] = dl * KV[v & 0xf]!;
          dst[y + j + 16] = dl * KV[v >> 4]!;
        }
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    checkSuperBlocks(n, 'IQ4_XS');
    const f: KFit = newFit();
    for (let x = srcOffset, o = dstOffset, end = srcOffset + n; x < end; x += 256, o += 136) {
      fitSymmetric(src, x, 32, 8, 127, 113, 31, f);
      const d = F16_TABLE[f.dBits]!;
      writeF16(dst, o, f.dBits);
      let sh = 0;
      dst.fill(0, o + 4, o + 8);
      for (let ib = 0; ib < 8; ib++) {
        const sc = f.k[ib]! * f.m[ib]!;
        const ls = sc + 32;
        dst[o + 4 + (ib >> 1)]! |= (ls & 0xf) << (4 * (ib & 1));
        sh |= (ls >> 4) << (2 * ib);
        const dl = d * sc;
        for (let j = 0; j < 16; j++) {
          dst[o + 8 + 16 * ib + j] = nearestKv(src[x + 32 * ib + j]!, dl) | (nearestKv(src[x + 32 * ib + 16 + j]!, dl) << 4);
        }
      }
      writeF16(dst, o + 2, sh);
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    checkSuperBlocks(n, 'IQ4_XS');
    for (let o = srcOffset, y = dstOffset, end = dstOffset + n; y < end; o += 136) {
      const d = readF16(src, o);
      for (let ib = 0; ib < 8; ib++, y += 32) {
        const dl = abs(d * iq4xsScale(src, o, ib));
        fillBound(dst, y, 32, KV_HALF_GAP * dl, 127 * dl);
      }
    }
  },
};

/** The KV index nearest x/dl (index of 1, the smallest |KV|, when dl = 0: the sub-block is all zero). */
function nearestKv(x: number, dl: number): number {
  if (dl === 0) return 8;
  const t = x / dl;
  let k = 0;
  while (k < 15 && t > MIDS[k]!) k++;
  return k;
}
