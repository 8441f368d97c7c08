/**
 * ggml tensor types (ggml.h `enum ggml_type`) with their block geometry (ggml.c type_traits):
 * a row of ne[0] elements is ne[0]/block blocks of `bytes` bytes, never straddling rows.
 */
export type GgmlType =
  | 'F32'
  | 'F16'
  | 'Q4_0'
  | 'Q4_1'
  | 'Q5_0'
  | 'Q5_1'
  | 'Q8_0'
  | 'Q8_1'
  | 'Q2_K'
  | 'Q3_K'
  | 'Q4_K'
  | 'Q5_K'
  | 'Q6_K'
  | 'Q8_K'
  | 'IQ2_XXS'
  | 'IQ2_XS'
  | 'IQ3_XXS'
  | 'IQ1_S'
  | 'IQ4_NL'
  | 'IQ3_S'
  | 'IQ2_S'
  | 'IQ4_XS'
  | 'I8'
  | 'I16'
  | 'I32'
  | 'I64'
  | 'F64'
  | 'IQ1_M'
  | 'BF16'
  | 'TQ1_0'
  | 'TQ2_0'
  | 'MXFP4';

export interface TypeTraits {
  id: number;
  block: number;
  bytes: number;
}

export const GGML_TYPES: Readonly<Record<GgmlType, TypeTraits>> = {
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2 },
  Q4_0: { id: 2, block: 32, bytes: 18 },
  Q4_1: { id: 3, block: 32, bytes: 20 },
  Q5_0: { id: 6, block: 32, bytes: 22 },
  Q5_1: { id: 7, block: 32, bytes: 24 },
  Q8_0: { id: 8, block: 32, bytes: 34 },
  Q8_1: { id: 9, block: 32, bytes: 36 },
  Q2_K: { id: 10, block: 256, bytes: 84 },
  Q3_K: { id: 11, block: 256, bytes: 110 },
  Q4_K: { id: 12, block: 256, bytes: 144 },
  Q5_K: { id: 13, block: 256, bytes: 176 },
  Q6_K: { id: 14, block: 256, bytes: 210 },
  Q8_K: { id: 15, block: 256, bytes: 292 },
  IQ2_XXS: { id: 16, block: 256, bytes: 66 },
  IQ2_XS: { id: 17, block: 256, bytes: 74 },
  IQ3_XXS: { id: 18, block: 256, bytes: 98 },
  IQ1_S: { id: 19, block: 256, bytes: 50 },
  IQ4_NL: { id: 20, block: 32, bytes: 18 },
  IQ3_S: { id: 21, block: 256, bytes: 110 },
  IQ2_S: { id: 22, block: 256, bytes: 82 },
  IQ4_XS: { id: 23, block: 256, bytes: 136 },
  I8: { id: 24, block: 1, bytes: 1 },
  I16: { id: 25, block: 1, bytes: 2 },
  I32: { id: 26, block: 1, bytes: 4 },
  I64: { id: 27, block: 1, bytes: 8 },
  F64: { id: 28, block: 1, bytes: 8 },
  IQ1_M: { id: 29, block: 256, bytes: 56 },
  BF16: { id: 30, block: 1, bytes: 2 },
  TQ1_0: { id: 34, block: 256, bytes: 54 },
  TQ2_0: { id: 35, block: 256, bytes: 66 },
  MXFP4: { id: 39, block: 32, bytes: 17 },
};

const BY_ID = new Map<number, GgmlType>(Object.entries(GGML_TYPES).map(([k, v]) => [v.id, k as GgmlType]));

/** The type of a ggml type id, or undefined for ids this table does not know. */
export const ggmlTypeOf = (id: number): GgmlType | undefined => BY_ID.get(id);

/** Bytes of a row of n elements; n must be a multiple of the block size. */
export function rowBytes(t: GgmlType, n: number): number {
  const { block, bytes } = GGML_TYPES[t];
  return (n / block) * bytes;
}

/**
 * A block codec. All offsets are in bytes (src) and elements (dst); n is a multiple of the block size.
 * - dequantize: ggml's dequantize_row_* for n elements.
 * - quantize: our own quantizer (for fixtures); chosen so no value is clipped.
 * - bound: for bytes our quantizer wrote, the largest |x − dequantize(quantize(x))| each element
 *   can have, computed from the block's stored scales (half a quantization step, or half an ulp).
 */
export interface Codec {
  dequantize(src: Uint8Array, srcOffset: number, dst: Float32Array, dstOffset: number, n: number): void;
  quantize(src: Float32Array, srcOffset: number, n: number, dst: Uint8Array, dstOffset: number): void;
  bound(src: Uint8Array, srcOffset: number, dst: Float32Array, dstOffset: number, n: number): void;
}
