/**
 * safetensors dtypes (huggingface/safetensors `safetensors/src/tensor.rs` `enum Dtype`) and their
 * sizes. Sizes are in bits because F4 and F6_* pack several elements per byte.
 */
export type SafetensorsDtype =
  | 'F32'
  | 'F16'
  | 'BF16'
  | 'F8_E4M3'
  | 'F64'
  | 'I8'
  | 'U8'
  | 'I16'
  | 'U16'
  | 'I32'
  | 'U32'
  | 'I64'
  | 'U64'
  | 'BOOL'
  | 'F8_E5M2'
  | 'F8_E8M0'
  | 'F8_E4M3FNUZ'
  | 'F8_E5M2FNUZ'
  | 'F4'
  | 'F6_E2M3'
  | 'F6_E3M2'
  | 'C64';

export const DTYPE_BITS: Readonly<Record<SafetensorsDtype, number>> = {
  BOOL: 8,
  F4: 4,
  F6_E2M3: 6,
  F6_E3M2: 6,
  U8: 8,
  I8: 8,
  F8_E5M2: 8,
  F8_E4M3: 8,
  F8_E8M0: 8,
  F8_E4M3FNUZ: 8,
  F8_E5M2FNUZ: 8,
  I16: 16,
  U16: 16,
  F16: 16,
  BF16: 16,
  I32: 32,
  U32: 32,
  F32: 32,
  C64: 64,
  F64: 64,
  I64: 64,
  U64: 64,
};

export function isSafetensorsDtype(s: unknown): s is SafetensorsDtype {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(DTYPE_BITS, s);
}

/** Product of the dims (1 for a scalar); undefined past 2^53. */
export function elementCount(shape: readonly number[]): number | undefined {
  let n = 1;
  for (const d of shape) {
    n *= d;
    if (!Number.isSafeInteger(n)) return undefined;
  }
  return n;
}

/** Bytes a tensor of this dtype and shape occupies; undefined when it overflows or ends mid-byte. */
export function tensorByteSize(dtype: SafetensorsDtype, shape: readonly number[]): number | undefined {
  const n = elementCount(shape);
  if (n === undefined) return undefined;
  const bits = n * DTYPE_BITS[dtype];
  if (!Number.isSafeInteger(bits) || bits % 8 !== 0) return undefined;
  return bits / 8;
}
