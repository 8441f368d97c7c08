import type { GgufValueType } from './types';

/** GGUF metadata value types by id (gguf.h `enum gguf_type`): the index is the id. */
export const VALUE_TYPES: readonly GgufValueType[] = [
  'UINT8',
  'INT8',
  'UINT16',
  'INT16',
  'UINT32',
  'INT32',
  'FLOAT32',
  'BOOL',
  'STRING',
  'ARRAY',
  'UINT64',
  'INT64',
  'FLOAT64',
];

export const valueTypeId = (t: GgufValueType): number => VALUE_TYPES.indexOf(t);

/** Bytes of a fixed-size value; STRING and ARRAY have their smallest size (an empty one). */
export const MIN_VALUE_BYTES: Readonly<Record<GgufValueType, number>> = {
  UINT8: 1,
  INT8: 1,
  BOOL: 1,
  UINT16: 2,
  INT16: 2,
  UINT32: 4,
  INT32: 4,
  FLOAT32: 4,
  UINT64: 8,
  INT64: 8,
  FLOAT64: 8,
  STRING: 8,
  ARRAY: 12,
};

/** Integer ranges of the 8..32-bit integer types. */
export const INT_RANGE: Partial<Readonly<Record<GgufValueType, readonly [number, number]>>> = {
  UINT8: [0, 0xff],
  INT8: [-0x80, 0x7f],
  UINT16: [0, 0xffff],
  INT16: [-0x8000, 0x7fff],
  UINT32: [0, 0xffffffff],
  INT32: [-0x80000000, 0x7fffffff],
};

/** Arrays nested deeper than this are rejected (a corrupt header could otherwise blow the stack). */
export const MAX_ARRAY_DEPTH = 16;

/**
 * What the reader holds of a header: counts a file states beyond these are limit-exceeded before
 * anything is allocated. The largest models have a few thousand tensors, some fifty metadata keys and
 * vocabularies of a few hundred thousand pieces.
 */
export const MAX_TENSORS = 1 << 20;
export const MAX_METADATA_KEYS = 1 << 20;
export const MAX_ARRAY_LENGTH = 1 << 24;

/** GGML_MAX_NAME: a tensor name is at most 63 bytes. */
export const MAX_NAME_BYTES = 63;
/** GGML_MAX_DIMS. */
export const MAX_DIMS = 4;
export const DEFAULT_ALIGNMENT = 32;
export const GGUF_MAGIC = 0x46554747;

const TWO_53 = 2n ** 53n;

/** A 64-bit integer as a number when it is exact (|v| ≤ 2^53), else as a bigint. */
export const int64Value = (v: bigint): number | bigint => (v <= TWO_53 && v >= -TWO_53 ? Number(v) : v);

export const alignUp = (x: number, a: number): number => x + ((a - (x % a)) % a);

export const isPowerOf2 = (a: number): boolean => Number.isInteger(a) && a > 0 && (a & (a - 1)) === 0;
