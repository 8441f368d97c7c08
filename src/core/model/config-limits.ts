/**
 * Bounds on a model config, checked before anything is built from it: each dimension, and the layer's weight elements
 * (what synthetic weights generate and the paths hold). Real MLA models sit well inside: GLM-5 (hidden 6144, 64 heads,
 * 165M weight elements), DeepSeek-V3 (7168, 128 heads, 187M), DeepSeek-V2 (5120, 128 heads), Kimi K2 (7168, 64 heads).
 */
import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../trace/model-config';

export type ConfigDim =
  | 'hidden_size'
  | 'num_attention_heads'
  | 'q_lora_rank'
  | 'kv_lora_rank'
  | 'qk_nope_head_dim'
  | 'qk_rope_head_dim'
  | 'v_head_dim'
  | 'max_position_embeddings'
  | 'vocab_size';

/** The largest value of each dimension (several times the largest real model's). */
export const CONFIG_MAX: Record<ConfigDim, number> = {
  hidden_size: 65_536,
  num_attention_heads: 1024,
  q_lora_rank: 65_536,
  kv_lora_rank: 16_384,
  qk_nope_head_dim: 4096,
  qk_rope_head_dim: 4096,
  v_head_dim: 4096,
  max_position_embeddings: 2 ** 24,
  vocab_size: 2 ** 24,
};

/** Weight elements of one layer's five projections: 2^28 (1 GiB as float32), 1.4× DeepSeek-V3's 187M. */
export const MAX_LAYER_WEIGHT_ELEMENTS = 2 ** 28;

/** Elements of q_a, q_b, kv_a, kv_b and o_proj (linearShape's shapes), the three norms aside. */
export function layerWeightElements(c: MlaConfig): number {
  const N = c.num_attention_heads;
  const D = c.qk_nope_head_dim + c.qk_rope_head_dim;
  const H = c.hidden_size;
  return (
    c.q_lora_rank * H +
    N * D * c.q_lora_rank +
    (c.kv_lora_rank + c.qk_rope_head_dim) * H +
    N * (c.qk_nope_head_dim + c.v_head_dim) * c.kv_lora_rank +
    H * N * c.v_head_dim
  );
}

/** Throws limit-exceeded naming the field (under `where.field`, default model) when a dimension or the layer is too large. */
export function checkConfigLimits(c: MlaConfig, where: { file?: string; field?: string } = {}): void {
  const at = (key: string) => ({ file: where.file, field: `${where.field ?? 'model'}.${key}` });
  for (const [k, max] of Object.entries(CONFIG_MAX) as [ConfigDim, number][]) {
    if (c[k] > max) {
      throw new MlaDiffError('limit-exceeded', `${k} ${c[k]} is over the limit of ${max}`, at(k), `${k} may be at most ${max}`);
    }
  }
  const n = layerWeightElements(c);
  if (n > MAX_LAYER_WEIGHT_ELEMENTS) {
    const gib = ((4 * n) / 2 ** 30).toFixed(1);
    throw new MlaDiffError(
      'limit-exceeded',
      `the layer's projections hold ${n} weights (${gib} GiB as float32), over the limit of ${MAX_LAYER_WEIGHT_ELEMENTS}`,
      at('num_attention_heads'),
      `at most ${MAX_LAYER_WEIGHT_ELEMENTS} weight elements (q_a, q_b, kv_a, kv_b, o_proj together; DeepSeek-V3 has 187M)`,
    );
  }
}
