/** Fixtures shared by the GGUF reader/writer tests: metadata of every value type, tensors of every layout. */
import { f32ToF16 } from '../../half';
import { dequantizeRow, quantizeRows } from '../codecs';
import type { GgmlType } from '../ggml-types';
import type { GgufEntry } from '../types';

/** n pseudo-random values in [-2, 2), exact in f16 (multiples of 1/64). */
export const values = (n: number, seed: number): Float32Array =>
  Float32Array.from({ length: n }, (_, i) => (((i * 7919 + seed * 104729) % 256) - 128) / 64);

export const f16Bytes = (v: Float32Array): Uint8Array => new Uint8Array(Uint16Array.from(v, (x) => f32ToF16(x)).buffer);

export const EVERY_TYPE: Record<string, GgufEntry> = {
  'general.architecture': { type: 'STRING', value: 'glm-dsa' },
  'test.u8': { type: 'UINT8', value: 250 },
  'test.i8': { type: 'INT8', value: -120 },
  'test.u16': { type: 'UINT16', value: 65000 },
  'test.i16': { type: 'INT16', value: -32000 },
  'test.u32': { type: 'UINT32', value: 4_000_000_000 },
  'test.i32': { type: 'INT32', value: -2_000_000_000 },
  'test.f32': { type: 'FLOAT32', value: 1.5 },
  'test.f64': { type: 'FLOAT64', value: Math.PI },
  'test.bool': { type: 'BOOL', value: true },
  'test.false': { type: 'BOOL', value: false },
  'test.utf8': { type: 'STRING', value: 'héllo ✓ 世界' },
  'test.u64.small': { type: 'UINT64', value: 123456789 },
  'test.u64.big': { type: 'UINT64', value: 2n ** 60n + 1n },
  'test.u64.max': { type: 'UINT64', value: 2n ** 64n - 1n },
  'test.i64': { type: 'INT64', value: -(2n ** 62n) },
  'test.i64.small': { type: 'INT64', value: -7 },
  'test.strings': { type: 'ARRAY', itemType: 'STRING', value: ['a', '', 'ü', 'Ġthe'] },
  'test.u32s': { type: 'ARRAY', itemType: 'UINT32', value: [0, 1, 4_294_967_295] },
  'test.empty': { type: 'ARRAY', itemType: 'FLOAT32', value: [] },
  'test.nested': {
    type: 'ARRAY',
    itemType: 'ARRAY',
    value: [[1, 2], ['x']],
    items: [
      { type: 'ARRAY', itemType: 'INT16', value: [1, 2] },
      { type: 'ARRAY', itemType: 'STRING', value: ['x'] },
    ],
  },
  // Bigger than the reader's 1 MiB chunk: the header is read across chunk boundaries.
  'tokenizer.ggml.tokens': { type: 'ARRAY', itemType: 'STRING', value: Array.from({ length: 120_000 }, (_, i) => `tok_${i}`) },
};

export interface Case {
  name: string;
  ne: number[];
  type: GgmlType;
  src: Float32Array;
  data: Uint8Array;
}

export function tensorCase(name: string, ne: number[], type: GgmlType, seed: number): Case {
  const src = values(
    ne.reduce((a, b) => a * b, 1),
    seed,
  );
  const data = type === 'F32' ? new Uint8Array(src.slice().buffer) : type === 'F16' ? f16Bytes(src) : quantizeRows(type, src, ne[0]!);
  return { name, ne, type, src, data };
}

export const CASES: readonly Case[] = [
  tensorCase('output_norm.weight', [7], 'F32', 1),
  tensorCase('blk.0.attn_q_a.weight', [4, 3], 'F16', 2),
  tensorCase('blk.0.attn_k_b.weight', [2, 3, 4], 'F32', 3),
  tensorCase('blk.0.attn_kv_a_mqa.weight', [64, 10], 'Q8_0', 4),
  tensorCase('blk.0.ffn_down.weight', [256, 3], 'Q4_K', 5),
  tensorCase('blk.0.attn_v_b.weight', [3, 2, 2], 'F16', 6),
];

/** What a reader must return for a case: the bytes dequantized by the codec. */
export function expected(c: Case): Float32Array {
  const out = new Float32Array(c.src.length);
  dequantizeRow(c.type, c.data, 0, out, 0, c.src.length);
  return out;
}
