/**
 * The codec registry: which ggml types this tool can dequantize (and quantize, for fixtures), and
 * row-level helpers that check block alignment and byte lengths before running a codec.
 */
import { MlaDiffError, type ErrorLocation } from '../../errors';
import { BF16_CODEC, F16_CODEC, F32_CODEC } from './codecs-float';
import { K_CODECS } from './codecs-k';
import { IQ4_NL_CODEC, Q4_0_CODEC, Q4_1_CODEC, Q5_0_CODEC, Q5_1_CODEC, Q8_0_CODEC } from './codecs-legacy';
import { GGML_TYPES, rowBytes, type Codec, type GgmlType } from './ggml-types';

const CODECS: ReadonlyMap<GgmlType, Codec> = new Map(
  (
    Object.entries({
      F32: F32_CODEC,
      F16: F16_CODEC,
      BF16: BF16_CODEC,
      Q8_0: Q8_0_CODEC,
      Q4_0: Q4_0_CODEC,
      Q4_1: Q4_1_CODEC,
      Q5_0: Q5_0_CODEC,
      Q5_1: Q5_1_CODEC,
      IQ4_NL: IQ4_NL_CODEC,
      ...K_CODECS,
    }) as [GgmlType, Codec | undefined][]
  )
    .filter((e): e is [GgmlType, Codec] => e[1] !== undefined)
    .sort((a, b) => GGML_TYPES[a[0]].id - GGML_TYPES[b[0]].id),
);

/** The supported types, in ggml id order. */
export const DEQUANT_TYPES: readonly GgmlType[] = Object.freeze([...CODECS.keys()]);

/** The codec of t, or undefined when this tool cannot dequantize t. */
export const codecFor = (t: GgmlType): Codec | undefined => CODECS.get(t);

/** The codec of t; throws 'unsupported-dtype' (at `where`) when there is none. */
export function requireCodec(t: GgmlType, where: ErrorLocation = {}): Codec {
  const c = CODECS.get(t);
  if (c) return c;
  throw new MlaDiffError('unsupported-dtype', `unsupported type ${t}`, where, `supported ggml types: ${DEQUANT_TYPES.join(', ')}`);
}

function checkBlocks(t: GgmlType, n: number, where: ErrorLocation): void {
  const { block } = GGML_TYPES[t];
  if (!(Number.isInteger(n) && n >= 0 && n % block === 0)) {
    throw new MlaDiffError(
      'tensor-shape',
      `${n} elements are not whole ${t} blocks of ${block}`,
      where,
      `a ${t} row length must be a multiple of ${block}`,
    );
  }
}

/**
 * Dequantizes n elements of type t (n a multiple of the block size) from src at byte srcOffset into
 * dst at element dstOffset. Throws 'unsupported-dtype', 'tensor-shape' (n not whole blocks) or
 * 'checkpoint-truncated' (src ends before the last block).
 */
export function dequantizeRow(
  t: GgmlType,
  src: Uint8Array,
  srcOffset: number,
  dst: Float32Array,
  dstOffset: number,
  n: number,
  where: ErrorLocation = {},
): void {
  const codec = requireCodec(t, where);
  checkBlocks(t, n, where);
  const bytes = rowBytes(t, n);
  if (srcOffset < 0 || srcOffset + bytes > src.length) {
    throw new MlaDiffError(
      'checkpoint-truncated',
      `${t} data needs ${bytes} bytes at ${srcOffset}, have ${src.length}`,
      where,
      'the file is shorter than its tensor table says; re-download it',
    );
  }
  if (dstOffset < 0 || dstOffset + n > dst.length) {
    throw new RangeError(`dequantizeRow: ${n} elements at ${dstOffset} overflow a destination of ${dst.length}`);
  }
  codec.dequantize(src, srcOffset, dst, dstOffset, n);
}

function rowCount(total: number, perRow: number, what: string): number {
  const rows = perRow === 0 ? (total === 0 ? 0 : NaN) : total / perRow;
  if (!Number.isInteger(rows)) throw new RangeError(`${what}: ${total} is not a whole number of rows of ${perRow}`);
  return rows;
}

/**
 * Quantizes src, whole rows of n elements each (n a multiple of the block size), into the bytes a
 * GGUF tensor of type t holds (our own never-clipping quantizer).
 */
export function quantizeRows(t: GgmlType, src: Float32Array, n: number): Uint8Array {
  const codec = requireCodec(t);
  checkBlocks(t, n, {});
  const rows = rowCount(src.length, n, 'quantizeRows');
  const out = new Uint8Array(rows * rowBytes(t, n));
  if (out.length > 0) codec.quantize(src, 0, src.length, out, 0);
  return out;
}

/** Per-element error bounds of bytes (whole rows of n elements of type t) that quantizeRows wrote. */
export function boundRows(t: GgmlType, bytes: Uint8Array, n: number): Float32Array {
  const codec = requireCodec(t);
  checkBlocks(t, n, {});
  const rows = rowCount(bytes.length, rowBytes(t, n), 'boundRows');
  const out = new Float32Array(rows * n);
  if (out.length > 0) codec.bound(bytes, 0, out, 0, out.length);
  return out;
}
