import type { GgmlType } from './ggml-types';

/** GGUF metadata value types (gguf.h `enum gguf_type`). */
export type GgufValueType =
  'UINT8' | 'INT8' | 'UINT16' | 'INT16' | 'UINT32' | 'INT32' | 'FLOAT32' | 'BOOL' | 'STRING' | 'ARRAY' | 'UINT64' | 'INT64' | 'FLOAT64';

/** A metadata value: 64-bit integers as bigint only when they do not fit a double exactly. */
export type GgufValue = number | bigint | string | boolean | GgufValue[];

/** A typed metadata entry, as stored (the writer needs the type; readers mostly use `value`). */
export interface GgufEntry {
  type: GgufValueType;
  /** Element type of an ARRAY. */
  itemType?: GgufValueType;
  value: GgufValue;
  /**
   * ARRAY of ARRAYs only: each inner array as an entry, since each stores its own element type
   * (the reader fills it; the writer needs it for nested arrays, `value` mirrors it).
   */
  items?: GgufEntry[];
}

export interface GgufTensorInfo {
  name: string;
  /** ggml order: ne[0] is the contiguous (innermost) dimension. */
  ne: number[];
  /** PyTorch order = reversed ne. */
  shape: number[];
  type: GgmlType;
  /** The shard file holding it. */
  file: string;
  /** Absolute byte offset in that file (data section start + the tensor's offset). */
  offset: number;
  bytes: number;
}

/** A parsed GGUF model: one file or all shards of a split (`-0000k-of-0000N.gguf`). */
export interface GgufModel {
  /** The shard paths, in order. */
  files: string[];
  version: number;
  alignment: number;
  /** Metadata of the first shard (split.* keys included). */
  metadata: Map<string, GgufEntry>;
  tensors: Map<string, GgufTensorInfo>;
  /** Bytes of all shards together. */
  totalBytes: number;
}
