import { MlaDiffError } from '../../errors';
import type { MlaConfig } from './config';

/** GLM-5 (glm_moe_dsa): mla-math.md §1.1. No YaRN: softmax scale = 256^-0.5 = 0.0625. */
const GLM5: MlaConfig = {
  hidden_size: 6144,
  num_attention_heads: 64,
  q_lora_rank: 2048,
  kv_lora_rank: 512,
  qk_nope_head_dim: 192,
  qk_rope_head_dim: 64,
  v_head_dim: 256,
  rope_theta: 1_000_000,
  rope_interleave: true,
  rope_scaling: null,
  rms_norm_eps: 1e-5,
  max_position_embeddings: 202_752,
  vocab_size: 154_880,
};

/** DeepSeek-V3: YaRN factor 40 over 4096 original positions; scale = 192^-0.5 · mscale². */
const DEEPSEEK_V3: MlaConfig = {
  hidden_size: 7168,
  num_attention_heads: 128,
  q_lora_rank: 1536,
  kv_lora_rank: 512,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  v_head_dim: 128,
  rope_theta: 10_000,
  rope_interleave: true,
  rope_scaling: {
    type: 'yarn',
    factor: 40,
    mscale: 1,
    mscale_all_dim: 1,
    original_max_position_embeddings: 4096,
    beta_fast: 32,
    beta_slow: 1,
  },
  rms_norm_eps: 1e-6,
  max_position_embeddings: 163_840,
  vocab_size: 129_280,
};

/** Small enough for unit tests everywhere, with V ≠ D so padding/splitting bugs show. */
const TINY: MlaConfig = {
  hidden_size: 96,
  num_attention_heads: 4,
  q_lora_rank: 48,
  kv_lora_rank: 32,
  qk_nope_head_dim: 16,
  qk_rope_head_dim: 8,
  v_head_dim: 12,
  rope_theta: 10_000,
  rope_interleave: true,
  rope_scaling: null,
  rms_norm_eps: 1e-5,
  max_position_embeddings: 4096,
  vocab_size: 1000,
};

export const PRESETS = { 'glm-5': GLM5, 'deepseek-v3': DEEPSEEK_V3, tiny: TINY } as const;
export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(s: string): s is PresetName {
  return Object.prototype.hasOwnProperty.call(PRESETS, s);
}

/** A fresh copy of a preset, so callers may override fields freely. */
export function preset(name: string): MlaConfig {
  if (!isPresetName(name)) {
    throw new MlaDiffError(
      'unknown-preset',
      `unknown model preset "${name}"`,
      { field: 'model.preset' },
      `presets: ${PRESET_NAMES.join(', ')}`,
    );
  }
  const p = PRESETS[name];
  return { ...p, rope_scaling: p.rope_scaling ? { ...p.rope_scaling } : null };
}
