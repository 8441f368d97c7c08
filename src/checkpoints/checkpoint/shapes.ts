import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor } from '../../core/weights/layer';
import { linearShape, normLength } from '../../core/weights/layer';

/** PyTorch shape each layer tensor must have under `c` (kv_b_proj merged). */
export function expectedShape(c: MlaConfig, t: LayerTensor): number[] {
  switch (t) {
    case 'input_layernorm':
    case 'q_a_layernorm':
    case 'kv_a_layernorm':
      return [normLength(c, t)];
    default:
      return linearShape(c, t);
  }
}

/** attn_k_b [H, L, P] and attn_v_b [H, V, L], PyTorch order (ggml ne reversed). */
export const kBShape = (c: MlaConfig): number[] => [c.num_attention_heads, c.kv_lora_rank, c.qk_nope_head_dim];
export const vBShape = (c: MlaConfig): number[] => [c.num_attention_heads, c.v_head_dim, c.kv_lora_rank];

/** Throws `tensor-shape` naming the tensor, the shape found and the one the config implies. */
export function checkShape(file: string, tensor: string, got: readonly number[], want: readonly number[], what: string): void {
  if (got.length === want.length && got.every((g, i) => g === want[i])) return;
  throw new MlaDiffError(
    'tensor-shape',
    `shape [${got.join(', ')}], expected [${want.join(', ')}] (${what})`,
    { file, field: tensor },
    'the checkpoint and the config disagree: check the model: overrides of the scenario, or the file is for another model',
  );
}
