import { isMlaDiffError, MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../file';
import { F16_TABLE } from '../half';
import { DTYPE_BITS, elementCount, type SafetensorsDtype } from './dtypes';
import { E4M3_TABLE, E8M0_TABLE } from './fp8';
import type { SafetensorsTensorInfo } from './types';

/** Bytes read per chunk for the converting dtypes (F32 is read straight into the result). */
const CHUNK_BYTES = 1 << 24;
const min = Math.min;

/** Runs `body` on the tensor's file, closing it after; errors from it name the file and the tensor (`field`). */
export function withTensorFile<T>(info: SafetensorsTensorInfo, body: (f: RandomAccessFile) => T): T {
  const f = RandomAccessFile.open(info.file);
  try {
    return body(f);
  } catch (e) {
    if (isMlaDiffError(e) && e.where.field === undefined) {
      throw new MlaDiffError(e.code, e.message, { ...e.where, file: info.file, field: info.name }, e.hint);
    }
    throw e;
  } finally {
    f.close();
  }
}

/** The element range [first, first+count) a row range of the first dim covers; the whole tensor without one. */
/** [first element, count] of rows [r0, r1) of the first dim (the whole tensor without rows); 'invalid-value' out of range. */
export function elementRange(info: SafetensorsTensorInfo, rows?: [number, number]): [number, number] {
  const total = elementCount(info.shape)!;
  if (!rows) return [0, total];
  const [r0, r1] = rows;
  const d0 = info.shape[0];
  if (d0 === undefined || !Number.isInteger(r0) || !Number.isInteger(r1) || r0 < 0 || r1 < r0 || r1 > d0) {
    throw new MlaDiffError(
      'invalid-value',
      `rows [${r0}, ${r1}) are not within the first dim of [${info.shape.join(', ')}]`,
      { file: info.file, field: info.name },
      'give [r0, r1) with 0 ≤ r0 ≤ r1 ≤ shape[0]',
    );
  }
  const perRow = d0 === 0 ? 0 : total / d0;
  return [r0 * perRow, (r1 - r0) * perRow];
}

/**
 * Reads a tensor (or rows [r0, r1) of its first dim) by offset and converts it to float32. Only the
 * dtypes in `allowed` are accepted (others: 'unsupported-dtype'). Assumes a little-endian host.
 */
export function decodeTensor(info: SafetensorsTensorInfo, allowed: readonly SafetensorsDtype[], rows?: [number, number]): Float32Array {
  const { dtype, name } = info;
  if (!allowed.includes(dtype)) {
    throw new MlaDiffError(
      'unsupported-dtype',
      `${name} is ${dtype}; this reader converts ${allowed.join(', ')}`,
      { file: info.file, field: name },
      dtype.startsWith('F8_')
        ? 'only F8_E4M3 (float8_e4m3fn, DeepSeek/GLM FP8) is decoded; convert the checkpoint to BF16 first'
        : 'integer and packed dtypes are not weights this tool reads',
    );
  }
  const [first, count] = elementRange(info, rows);
  const eb = DTYPE_BITS[dtype] / 8;
  const start = info.offset + first * eb;
  const out = new Float32Array(count);
  if (count === 0) return out;
  return withTensorFile(info, (f) => {
    if (dtype === 'F32') {
      f.read(start, count * 4, `tensor ${name}`, new Uint8Array(out.buffer));
      return out;
    }
    const out32 = new Uint32Array(out.buffer);
    const chunk = Buffer.allocUnsafe(min(count * eb, CHUNK_BYTES));
    const perChunk = chunk.length / eb;
    for (let i = 0; i < count; i += perChunk) {
      const n = min(perChunk, count - i);
      const b = f.read(start + i * eb, n * eb, `tensor ${name}`, chunk);
      if (dtype === 'BF16') for (let k = 0; k < n; k++) out32[i + k] = (b[2 * k]! | (b[2 * k + 1]! << 8)) << 16;
      else if (dtype === 'F16') for (let k = 0; k < n; k++) out[i + k] = F16_TABLE[b[2 * k]! | (b[2 * k + 1]! << 8)]!;
      else if (dtype === 'F8_E4M3') for (let k = 0; k < n; k++) out[i + k] = E4M3_TABLE[b[k]!]!;
      else for (let k = 0; k < n; k++) out[i + k] = E8M0_TABLE[b[k]!]!;
    }
    return out;
  });
}

/** Raw 16-bit words or bytes of a tensor (for error bounds that depend on the stored bits). */
export function readRawBits(info: SafetensorsTensorInfo, rows?: [number, number]): Uint8Array | Uint16Array {
  const [first, n] = elementRange(info, rows);
  const eb = DTYPE_BITS[info.dtype] / 8;
  const raw = eb === 2 ? new Uint16Array(n) : new Uint8Array(n * eb);
  if (n > 0) withTensorFile(info, (f) => f.read(info.offset + first * eb, n * eb, `tensor ${info.name}`, new Uint8Array(raw.buffer)));
  return raw;
}
