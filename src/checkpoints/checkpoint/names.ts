import type { LinearName, NormName } from '../../core/weights/layer';

/**
 * Tensor names of one MLA layer in the two naming schemes: llama.cpp's GGUF names
 * (gguf-py tensor map for deepseek2 / glm-dsa) and Hugging Face's safetensors names.
 */
export type LayerTensor = LinearName | NormName;

const GGUF: Record<LayerTensor, string> = {
  input_layernorm: 'attn_norm',
  q_a_proj: 'attn_q_a',
  q_a_layernorm: 'attn_q_a_norm',
  q_b_proj: 'attn_q_b',
  kv_a_proj_with_mqa: 'attn_kv_a_mqa',
  kv_a_layernorm: 'attn_kv_a_norm',
  kv_b_proj: 'attn_kv_b',
  o_proj: 'attn_output',
};

/** `blk.N.attn_q_a.weight`; kv_b_proj's legacy merged tensor is `blk.N.attn_kv_b.weight`. */
export const ggufName = (layer: number, t: LayerTensor): string => `blk.${layer}.${GGUF[t]}.weight`;
/** The converter's split of kv_b_proj (llama.cpp PR #12801): W_UK transposed per head, and W_UV. */
export const ggufKB = (layer: number): string => `blk.${layer}.attn_k_b.weight`;
export const ggufVB = (layer: number): string => `blk.${layer}.attn_v_b.weight`;
export const GGUF_EMBEDDINGS = 'token_embd.weight';

/** `model.layers.N.self_attn.q_a_proj.weight`; input_layernorm sits beside self_attn. */
export function hfName(layer: number, t: LayerTensor): string {
  return t === 'input_layernorm' ? `model.layers.${layer}.input_layernorm.weight` : `model.layers.${layer}.self_attn.${t}.weight`;
}
export const HF_EMBEDDINGS = 'model.embed_tokens.weight';
/** DeepSeek-style FP8 block scales of a weight (`…weight_scale_inv`; multiplied in, despite the name). */
export const hfScaleName = (weight: string): string => `${weight.replace(/\.weight$/, '')}.weight_scale_inv`;

/** Layer indices present in a set of tensor names (`blk.N.` or `model.layers.N.`). */
export function layerIndices(names: Iterable<string>): number[] {
  const out = new Set<number>();
  for (const n of names) {
    const m = /^(?:blk|model\.layers)\.(\d+)\./.exec(n);
    if (m) out.add(Number(m[1]));
  }
  return [...out].sort((a, b) => a - b);
}
