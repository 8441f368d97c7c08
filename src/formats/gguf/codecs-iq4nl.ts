/**
 * GGUF codec for IQ4_NL {f16 d; u8 qs[16]} (ggml-quants.c dequantize_row_iq4_nl):
 * y[j] = d·KV[lo(qs[j])], y[j+16] = d·KV[hi(qs[j])] over the non-uniform grid KV below.
 * Our quantizer picks the f16 d (either sign) of least |d| that puts every value of the block inside
 * [−127·d, 113·d] (so nothing is clipped), then the nearest grid value: bound = 12·|d|, half the
 * largest gap between adjacent grid values (89 → 113).
 */
import { F16_TABLE } from '../half';
import type { Codec } from './ggml-types';
import { blockMinMax, f16BumpBits, f16CeilBits, fillScaleBound, writeF16 } from './codecs-legacy-scales';

/** kvalues_iq4nl (ggml-common.h). */
export const IQ4_NL_VALUES: Int8Array = Int8Array.of(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

/** Half the largest gap between adjacent IQ4_NL grid values. */
export const IQ4_NL_HALF_GAP = 12;

const KV_LO = -127;
const KV_HI = 113;
/** Midpoints between adjacent grid values: the index of t is the number of midpoints below it. */
export const IQ4_NL_MIDS: Float64Array = Float64Array.from({ length: 15 }, (_, i) => (IQ4_NL_VALUES[i]! + IQ4_NL_VALUES[i + 1]!) / 2);

const { max, min } = Math;

function nearest(t: number): number {
  let k = 0;
  while (k < 15 && t > IQ4_NL_MIDS[k]!) k++;
  return k;
}

/** Whether d·[−127, 113] covers [lo, hi]. */
function covers(lo: number, hi: number, d: number): boolean {
  const a = lo / d;
  const b = hi / d;
  return min(a, b) >= KV_LO && max(a, b) <= KV_HI;
}

/** f16 bits of the block scale: the least |d| (either sign) with d·[−127, 113] ⊇ [lo, hi]; 0 if all zero. */
function iq4nlScaleBits(lo: number, hi: number): number {
  if (lo === 0 && hi === 0) return 0;
  const pos = max(hi / KV_HI, -lo / -KV_LO); // d > 0: hi ≤ 113d, lo ≥ −127d
  const neg = max(hi / -KV_LO, -lo / KV_HI); // d < 0: hi ≤ 127|d|, lo ≥ −113|d|
  const sign = neg < pos ? 0x8000 : 0;
  let h = f16CeilBits(min(pos, neg));
  while (!covers(lo, hi, F16_TABLE[h | sign]!)) h = f16BumpBits(h);
  return h | sign;
}

export const IQ4_NL_CODEC: Codec = {
  dequantize(src, srcOffset, dst, dstOffset, n) {
    const kv = IQ4_NL_VALUES;
    for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += 18, y += 32) {
      const d = F16_TABLE[src[o]! | (src[o + 1]! << 8)]!;
      for (let j = 0; j < 16; j++) {
        const b = src[o + 2 + j]!;
        dst[y + j] = d * kv[b & 0xf]!;
        dst[y + j + 16] = d * kv[b >>> 4]!;
      }
    }
  },
  quantize(src, srcOffset, n, dst, dstOffset) {
    const mm = new Float64Array(2);
    for (let x = srcOffset, o = dstOffset, e = srcOffset + n; x < e; x += 32, o += 18) {
      blockMinMax(src, x, 32, mm);
      const h = iq4nlScaleBits(mm[0]!, mm[1]!);
      const d = F16_TABLE[h]!;
      writeF16(dst, o, h);
      for (let j = 0; j < 16; j++) {
        const lo = h === 0 ? 8 : nearest(src[x + j]! / d);
        const hi = h === 0 ? 8 : nearest(src[x + j + 16]! / d);
        dst[o + 2 + j] = lo | (hi << 4);
      }
    }
  },
  bound(src, srcOffset, dst, dstOffset, n) {
    fillScaleBound(src, srcOffset, dst, dstOffset, n, 18, IQ4_NL_HALF_GAP);
  },
};
