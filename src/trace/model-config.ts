/** The layer configuration a report echoes (scenario.config); core/model/config.ts checks and derives from it. */

/** YaRN rope scaling as DeepSeek-V3 config.json spells it (`rope_scaling`). */
export interface YarnScaling {
  type: 'yarn';
  factor: number;
  mscale: number;
  mscale_all_dim: number;
  original_max_position_embeddings: number;
  beta_fast: number;
  beta_slow: number;
}

/**
 * One MLA attention layer's configuration, in Hugging Face config.json names so that a
 * scenario override reads like the model's own config.
 */
export interface MlaConfig {
  hidden_size: number;
  num_attention_heads: number;
  q_lora_rank: number;
  kv_lora_rank: number;
  qk_nope_head_dim: number;
  qk_rope_head_dim: number;
  v_head_dim: number;
  rope_theta: number;
  /** true: GPT-J interleaved pairs (GLM-5, DeepSeek); false: NeoX split halves. */
  rope_interleave: boolean;
  rope_scaling: YarnScaling | null;
  rms_norm_eps: number;
  max_position_embeddings: number;
  vocab_size: number;
}
