import type { MlaConfig } from '../model/config';
import { qkHeadDim } from '../model/config';
import type { HeadSlice, LayerTensor, LinearName, NormName } from '../../trace';

/** The layer's tensor names (projections in Hugging Face names, stored [out, in]; RMSNorm weights): src/trace/names.ts. */
export type { LayerTensor, LinearName, NormName } from '../../trace';
export { LINEAR_NAMES, NORM_NAMES } from '../../trace';

/**
 * How a matrix sits in memory. 'out_in' is PyTorch's [out, in]; 'in_out' is its transpose,
 * the layout that `x @ W` wants without a transposed operand.
 */
export type Layout = 'out_in' | 'in_out';

/** [out, in] of each projection for the full (unsliced) layer. */
export function linearShape(c: MlaConfig, name: LinearName): [number, number] {
  const N = c.num_attention_heads;
  switch (name) {
    case 'q_a_proj':
      return [c.q_lora_rank, c.hidden_size];
    case 'q_b_proj':
      return [N * qkHeadDim(c), c.q_lora_rank];
    case 'kv_a_proj_with_mqa':
      return [c.kv_lora_rank + c.qk_rope_head_dim, c.hidden_size];
    case 'kv_b_proj':
      return [N * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank];
    case 'o_proj':
      return [c.hidden_size, N * c.v_head_dim];
  }
}

export function normLength(c: MlaConfig, name: NormName): number {
  switch (name) {
    case 'input_layernorm':
      return c.hidden_size;
    case 'q_a_layernorm':
      return c.q_lora_rank;
    case 'kv_a_layernorm':
      return c.kv_lora_rank;
  }
}

/** A contiguous run of heads, e.g. tensor-parallel rank 0 of 8 on GLM-5 = {start: 0, count: 8}. */
export type { HeadSlice } from '../../trace';

export type Range = readonly [number, number];

/** Rows and columns of a projection that a head slice keeps (column-parallel in, row-parallel out). */
export function sliceRanges(c: MlaConfig, name: LinearName, heads: HeadSlice): { rows: Range; cols: Range } {
  const [out, inp] = linearShape(c, name);
  const h0 = heads.start;
  const h1 = heads.start + heads.count;
  const per = (w: number): Range => [h0 * w, h1 * w];
  switch (name) {
    case 'q_b_proj':
      return { rows: per(qkHeadDim(c)), cols: [0, inp] };
    case 'kv_b_proj':
      return { rows: per(c.qk_nope_head_dim + c.v_head_dim), cols: [0, inp] };
    case 'o_proj':
      return { rows: [0, out], cols: per(c.v_head_dim) };
    default:
      return { rows: [0, out], cols: [0, inp] };
  }
}

/** The config a head slice runs with: same dims, fewer heads. */
export function slicedConfig(c: MlaConfig, heads: HeadSlice): MlaConfig {
  return { ...c, num_attention_heads: heads.count };
}

/** Every tensor of the layer: the projections and the norm weights. */
export const LAYER_TENSORS: readonly LayerTensor[] = [
  'input_layernorm',
  'q_a_proj',
  'q_a_layernorm',
  'q_b_proj',
  'kv_a_proj_with_mqa',
  'kv_a_layernorm',
  'kv_b_proj',
  'o_proj',
];

/** Where a layer tensor's values came from: the file's tensor names and their stored types. */
export interface WeightOrigin {
  tensors: string[];
  /** e.g. `Q8_0`, `F8_E4M3×128²`, `F32`; `Q8_0+F16` when reassembled from two tensors. */
  dtype: string;
}

/**
 * Where weights come from: synthetic, or a GGUF / safetensors checkpoint. Blocks are addressed
 * in the full layer's [out, in] coordinates.
 */
export interface WeightSource {
  /** e.g. `synthetic(seed=0)`, `gguf tiny-q8_0.gguf layer 0`. */
  readonly label: string;
  readonly config: MlaConfig;
  origin(name: LayerTensor): WeightOrigin;
  /**
   * Per element, in [out, in] order, the most its value can differ from the values it was
   * quantized from (half a quantization step); null when stored exactly (synthetic, F32).
   */
  errorBound(name: LayerTensor): Float32Array | null;
  norm(name: NormName): Float32Array;
  /** Fill `dst` with W[rows, cols] in `layout`. */
  block(name: LinearName, rows: Range, cols: Range, layout: Layout, dst: Float32Array): void;
  /** Where the embedding table comes from. */
  embeddingOrigin(): WeightOrigin;
  /** Quantization bound of these embedding rows, [T, hidden_size]; null when exact. */
  embeddingBound(ids: readonly number[]): Float32Array | null;
  /** Embedding rows for these token ids, [T, hidden_size]; never the whole table. */
  embeddings(ids: readonly number[]): Float32Array;
}
