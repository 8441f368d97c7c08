/**
 * Block scale helpers for our own legacy-quant writers (codecs-legacy*.ts): f16 fields in block
 * bytes, directed f16 rounding, and per-block statistics that reject non-finite input.
 */
import { MlaDiffError } from '../../errors';
import { F16_TABLE, f32ToF16 } from '../half';

const { abs } = Math;

/** The f16 at byte o of b (little-endian), as a number. */
export const readF16 = (b: Uint8Array, o: number): number => F16_TABLE[b[o]! | (b[o + 1]! << 8)]!;

/** Writes f16 bits h at byte o of b (little-endian). */
export function writeF16(b: Uint8Array, o: number, h: number): void {
  b[o] = h & 0xff;
  b[o + 1] = (h >>> 8) & 0xff;
}

const F16_MAX = 65504;

function scaleOverflow(what: string, v: number): MlaDiffError {
  return new MlaDiffError(
    'invalid-value',
    `block ${what} ${v} does not fit an f16`,
    {},
    'quantize only finite values whose block range fits binary16 (|scale| ≤ 65504)',
  );
}

/** Bits of the smallest non-negative f16 ≥ v (v ≥ 0); throws when that is not finite. */
export function f16CeilBits(v: number): number {
  let h = f32ToF16(v) & 0x7fff;
  if (F16_TABLE[h]! < v) h++;
  if (!(F16_TABLE[h]! <= F16_MAX)) throw scaleOverflow('scale', v);
  return h;
}

/** Bits of the largest f16 ≤ v (0 for v = 0); throws when that is not finite. */
export function f16FloorBits(v: number): number {
  if (v === 0) return 0;
  let h = f32ToF16(v);
  if (F16_TABLE[h]! > v) h = h & 0x8000 ? h + 1 : h === 0 ? 0x8001 : h - 1;
  if (!(abs(F16_TABLE[h]!) <= F16_MAX)) throw scaleOverflow('offset', v);
  return h;
}

/** Bits of the next f16 magnitude above h's (same sign); throws past 65504. */
export function f16BumpBits(h: number): number {
  const r = h + 1;
  if (!(abs(F16_TABLE[r]!) <= F16_MAX)) throw scaleOverflow('scale', F16_TABLE[h]!);
  return r;
}

function nonFinite(): MlaDiffError {
  return new MlaDiffError('invalid-value', 'cannot quantize a block holding NaN or ±Infinity', {}, 'quantize finite values only');
}

/** max |x| over n elements at o; throws on NaN/±Infinity. */
export function blockAbsMax(src: Float32Array, o: number, n: number): number {
  let amax = 0;
  let bad = 0;
  for (let i = o, e = o + n; i < e; i++) {
    const x = src[i]!;
    bad += x - x; // 0 for finite x, NaN otherwise
    const a = x < 0 ? -x : x;
    if (a > amax) amax = a;
  }
  if (bad !== 0) throw nonFinite();
  return amax;
}

/** [min, max] over n elements at o, written into out; throws on NaN/±Infinity. */
export function blockMinMax(src: Float32Array, o: number, n: number, out: Float64Array): void {
  let lo = Infinity;
  let hi = -Infinity;
  let bad = 0;
  for (let i = o, e = o + n; i < e; i++) {
    const x = src[i]!;
    bad += x - x;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (bad !== 0) throw nonFinite();
  out[0] = lo;
  out[1] = hi;
}

/**
 * Bits of the f16 scale d ≥ 0 of a symmetric block with levels −N..N: the smallest f16 with
 * amax/d ≤ N (so round(x/d) never leaves [−N, N]); 0 for an all-zero block.
 */
export function symmetricScaleBits(amax: number, levels: number): number {
  if (amax === 0) return 0;
  let h = f16CeilBits(amax / levels);
  while (amax / F16_TABLE[h]! > levels) h = f16BumpBits(h);
  return h;
}

/**
 * f16 bits [d, m] of an affine block with levels 0..N: m = largest f16 ≤ min, then the smallest
 * f16 d with m + N·d ≥ max, so the grid m + q·d (q ∈ 0..N) covers [min, max]; d = 0 when max = m.
 */
export function affineScaleBits(lo: number, hi: number, levels: number, out: Uint16Array): void {
  const mh = f16FloorBits(lo);
  const m = F16_TABLE[mh]!;
  let dh = 0;
  if (hi > m) {
    dh = f16CeilBits((hi - m) / levels);
    while (m + levels * F16_TABLE[dh]! < hi) dh = f16BumpBits(dh);
  }
  out[0] = dh;
  out[1] = mh;
}

/** Writes factor·|d| for each block of 32 (d = the f16 at the block's first byte) into dst. */
export function fillScaleBound(
  src: Uint8Array,
  srcOffset: number,
  dst: Float32Array,
  dstOffset: number,
  n: number,
  bytes: number,
  factor: number,
): void {
  for (let o = srcOffset, y = dstOffset, e = dstOffset + n; y < e; o += bytes, y += 32) {
    dst.fill(abs(readF16(src, o)) * factor, y, y + 32);
  }
}
