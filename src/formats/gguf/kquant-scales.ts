/**
 * Shared pieces of the K-quant codecs (QK_K = 256 super-blocks): the packed 6-bit sub-scales of
 * Q4_K/Q5_K (get_scale_min_k4) and Q3_K, the f16 super-scale search (f16 fields: codecs-legacy-scales.ts) of our quantizer,
 * and the bound writer. Layouts follow ggml-common.h / ggml-quants.c.
 */
import { MlaDiffError } from '../../errors';
import { F16_TABLE } from '../half';
import { f16CeilBits } from './codecs-legacy-scales';

const { ceil } = Math;

export const QK_K = 256;

/** get_scale_min_k4's scale of sub-block j (0..7) from the 12 bytes at q[o..o+12). */
export const scaleK4 = (q: Uint8Array, o: number, j: number): number =>
  j < 4 ? q[o + j]! & 63 : (q[o + j + 4]! & 0xf) | ((q[o + j - 4]! >> 6) << 4);

/** get_scale_min_k4's min of sub-block j (0..7) from the 12 bytes at q[o..o+12). */
export const minK4 = (q: Uint8Array, o: number, j: number): number =>
  j < 4 ? q[o + j + 4]! & 63 : (q[o + j + 4]! >> 4) | ((q[o + j]! >> 6) << 4);

/** Packs 8 six-bit scales and mins (0..63) into 12 bytes at q[o], the inverse of scaleK4/minK4. */
export function packScaleMinK4(sc: ArrayLike<number>, m: ArrayLike<number>, q: Uint8Array, o: number): void {
  for (let j = 0; j < 4; j++) {
    const sh = sc[j + 4]!;
    const mh = m[j + 4]!;
    q[o + j] = sc[j]! | ((sh >> 4) << 6);
    q[o + j + 4] = m[j]! | ((mh >> 4) << 6);
    q[o + j + 8] = (sh & 0xf) | ((mh & 0xf) << 4);
  }
}

const u32At = (b: Uint8Array, o: number): number => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

/**
 * The 16 signed Q3_K sub-scales (6-bit value − 32) from the 12 bytes at b[o], unpacked as
 * dequantize_row_q3_K does (three LE u32 words `aux`, kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f).
 */
export function unpackQ3Scales(b: Uint8Array, o: number, out: Int32Array): void {
  const a0 = u32At(b, o);
  const a1 = u32At(b, o + 4);
  const tmp = u32At(b, o + 8);
  const k1 = 0x03030303;
  const k2 = 0x0f0f0f0f;
  const w2 = ((a0 >>> 4) & k2) | (((tmp >>> 4) & k1) << 4);
  const w3 = ((a1 >>> 4) & k2) | (((tmp >>> 6) & k1) << 4);
  const w0 = (a0 & k2) | ((tmp & k1) << 4);
  const w1 = (a1 & k2) | (((tmp >>> 2) & k1) << 4);
  for (let i = 0; i < 4; i++) {
    const s = 8 * i;
    out[i] = ((w0 >>> s) & 0xff) - 32;
    out[i + 4] = ((w1 >>> s) & 0xff) - 32;
    out[i + 8] = ((w2 >>> s) & 0xff) - 32;
    out[i + 12] = ((w3 >>> s) & 0xff) - 32;
  }
}

/**
 * Packs 16 signed Q3_K sub-scales (−32..31) into 12 bytes at b[o] as quantize_row_q3_K_ref does:
 * low nibble of scale j in byte j (j < 8) or the high nibble of byte j−8; its top two bits at
 * bits 2·(j/4) of byte 8 + j%4.
 */
export function packQ3Scales(s: ArrayLike<number>, b: Uint8Array, o: number): void {
  b.fill(0, o, o + 12);
  for (let j = 0; j < 16; j++) {
    const l = s[j]! + 32;
    if (j < 8) b[o + j]! |= l & 0xf;
    else b[o + j - 8]! |= (l & 0xf) << 4;
    b[o + 8 + (j & 3)]! |= (l >> 4) << (2 * (j >> 2));
  }
}

function tooLarge(v: number): MlaDiffError {
  return new MlaDiffError(
    'invalid-value',
    `K-quant super-block scale ${v} does not fit an f16`,
    {},
    'quantize only finite values whose per-block scale fits binary16 (≤ 65504)',
  );
}

/**
 * Our quantizer's scale search. Picks the smallest f16 d ≥ max(need)/kMax for which every
 * sub-block has an integer k_j ≤ kMax with k_j·d ≥ need_j, and writes the least such k_j
 * (0 where need_j = 0). Products k·d are exact in doubles, so the comparisons are exact.
 * Returns d's bits (0 when all needs are 0).
 */
export function chooseScales(need: Float64Array, count: number, kMax: number, k: Int32Array): number {
  let top = 0;
  for (let j = 0; j < count; j++) if (need[j]! > top) top = need[j]!;
  if (top === 0) {
    k.fill(0, 0, count);
    return 0;
  }
  for (let h = f16CeilBits(top / kMax); h < 0x7c00; h++) {
    const d = F16_TABLE[h]!;
    let j = 0;
    for (; j < count; j++) {
      const t = need[j]!;
      let kj = ceil(t / d);
      while (kj * d < t) kj++;
      if (kj > 0 && (kj - 1) * d >= t) kj--;
      if (kj > kMax) break;
      k[j] = kj;
    }
    if (j === count) return h;
  }
  throw tooLarge(top / kMax);
}

/**
 * Writes the bound of `count` elements at dst[at]: half a step plus 2^-23 of the largest grid
 * magnitude (float32 rounding of ggml's `dl*q - ml` and of our level choice), rounded up so the
 * float32 store never lands below it.
 */
export function fillBound(dst: Float32Array, at: number, count: number, half: number, gridMax: number): void {
  dst.fill((half + gridMax * 2 ** -23) * (1 + 2 ** -23), at, at + count);
}

/** Throws unless n is a whole number of 256-element super-blocks. */
export function checkSuperBlocks(n: number, type: string): void {
  if (!(Number.isInteger(n) && n >= 0 && n % QK_K === 0)) {
    throw new MlaDiffError('tensor-shape', `${n} elements are not whole ${type} super-blocks of ${QK_K}`);
  }
}
