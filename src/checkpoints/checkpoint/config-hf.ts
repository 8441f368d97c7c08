import { isMlaDiffError, MlaDiffError } from '../../errors';
import { checkBlock } from '../../formats/safetensors/scales';
import { readTextFile } from '../../formats/text-file';
import type { MlaConfig, YarnScaling } from '../../core/model/config';

type Json = Record<string, unknown>;

/** Model types whose attention is MLA in Hugging Face transformers. */
export const HF_MLA_TYPES = ['deepseek_v2', 'deepseek_v3', 'deepseek_v32', 'glm_moe_dsa', 'kimi_k2'] as const;

/** config.json is a few kB; 16 MiB is far past any real one. */
const CONFIG_BYTES = 16 * 1024 * 1024;

/** Reads config.json (JSON errors and missing fields name the file and key). */
export function readConfigJson(file: string): Json {
  const hint = 'a Hugging Face checkpoint directory holds config.json next to the *.safetensors files';
  let text: string;
  try {
    // opened without blocking and bounded: a FIFO or a device named config.json is refused, not read
    text = readTextFile(file, 'a config.json', hint, CONFIG_BYTES);
  } catch (e) {
    if (isMlaDiffError(e) && e.code === 'file-not-found')
      throw new MlaDiffError('file-not-found', 'no config.json beside the safetensors checkpoint', { file }, hint);
    throw e;
  }
  try {
    const j = JSON.parse(text) as unknown;
    if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new Error('not a JSON object');
    return j as Json;
  } catch (e) {
    throw new MlaDiffError('checkpoint-invalid', `not valid JSON: ${(e as Error).message}`, { file });
  }
}

/** MlaConfig from a Hugging Face config.json (DeepSeek-V3 / GLM-5 field names). */
export function configFromHf(j: Json, file: string): MlaConfig {
  const need = (key: string): number => {
    const v = j[key];
    if (typeof v !== 'number') {
      throw new MlaDiffError(
        'checkpoint-invalid',
        v === undefined ? 'missing field' : `must be a number, got ${JSON.stringify(v)}`,
        { file, field: key },
        'an MLA config.json has q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim',
      );
    }
    return v;
  };
  const rs = (j.rope_scaling ?? null) as Json | null;
  const kind = rs ? (rs.rope_type ?? rs.type) : null;
  let rope_scaling: YarnScaling | null = null;
  if (rs && kind === 'yarn') {
    const n = (k: string, d: number) => (typeof rs[k] === 'number' ? (rs[k] as number) : d);
    rope_scaling = {
      type: 'yarn',
      factor: n('factor', 1),
      mscale: n('mscale', 1),
      mscale_all_dim: n('mscale_all_dim', 1),
      original_max_position_embeddings: n('original_max_position_embeddings', 4096),
      beta_fast: n('beta_fast', 32),
      beta_slow: n('beta_slow', 1),
    };
  } else if (rs && kind !== 'default') {
    throw new MlaDiffError(
      'checkpoint-invalid',
      kind === undefined || kind === null
        ? 'rope_scaling has no type (rope_type)'
        : `rope_scaling type ${JSON.stringify(kind)} is not supported`,
      { file, field: 'rope_scaling' },
      'supported: default (none), yarn',
    );
  }
  return {
    hidden_size: need('hidden_size'),
    num_attention_heads: need('num_attention_heads'),
    q_lora_rank: need('q_lora_rank'),
    kv_lora_rank: need('kv_lora_rank'),
    qk_nope_head_dim: need('qk_nope_head_dim'),
    qk_rope_head_dim: need('qk_rope_head_dim'),
    v_head_dim: need('v_head_dim'),
    rope_theta: typeof j.rope_theta === 'number' ? j.rope_theta : 10_000,
    // transformers' DeepSeek-V3 / GLM-5 attention rotates interleaved pairs unless told otherwise.
    rope_interleave: j.rope_interleave !== false,
    rope_scaling,
    rms_norm_eps: typeof j.rms_norm_eps === 'number' ? j.rms_norm_eps : 1e-6,
    max_position_embeddings: need('max_position_embeddings'),
    vocab_size: need('vocab_size'),
  };
}

/** `quantization_config.weight_block_size` of an FP8 checkpoint, else the DeepSeek default 128×128; one stated is two positive integers. */
export function fp8BlockSize(j: Json, file?: string): [number, number] {
  const q = j.quantization_config as Json | undefined;
  const b = q !== null && typeof q === 'object' ? q.weight_block_size : undefined;
  if (b === undefined || b === null) return [128, 128];
  return checkBlock(Array.isArray(b) ? b : [b], 'quantization_config.weight_block_size', file);
}
