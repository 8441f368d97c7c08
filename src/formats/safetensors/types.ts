import type { SafetensorsDtype } from './dtypes';

export interface SafetensorsTensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  /** Row-major (PyTorch order). */
  shape: number[];
  /** The file holding it (a shard for sharded checkpoints). */
  file: string;
  /** Absolute byte offset in `file`: 8 + header length + data_offsets[0]. */
  offset: number;
  /** data_offsets[1] - data_offsets[0]. */
  bytes: number;
}

/** One safetensors file or all shards of an indexed checkpoint; headers only, no tensor bytes. */
export interface SafetensorsModel {
  /** The files, in order (shards sorted by name). */
  files: string[];
  tensors: Map<string, SafetensorsTensorInfo>;
  /** `__metadata__` of the file(s); for an index also its `metadata` (e.g. total_size), stringified. */
  metadata: Record<string, string>;
  /** Sum of `bytes` over `tensors`. */
  totalBytes: number;
}

export type TensorToWrite =
  | {
      name: string;
      dtype: 'F32' | 'F16' | 'BF16' | 'F8_E4M3';
      shape: number[];
      data: Float32Array;
    }
  | {
      /** Integers (positions), written as they are. */
      name: string;
      dtype: 'I32';
      shape: number[];
      data: Int32Array;
    };
