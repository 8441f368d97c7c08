import { MlaDiffError } from '../../errors';
import { checkConfigLimits } from './config-limits';
import type { MlaConfig } from '../../trace/model-config';

export type { MlaConfig, YarnScaling } from '../../trace/model-config';

export const CONFIG_KEYS: readonly (keyof MlaConfig)[] = [
  'hidden_size',
  'num_attention_heads',
  'q_lora_rank',
  'kv_lora_rank',
  'qk_nope_head_dim',
  'qk_rope_head_dim',
  'v_head_dim',
  'rope_theta',
  'rope_interleave',
  'rope_scaling',
  'rms_norm_eps',
  'max_position_embeddings',
  'vocab_size',
];

/** D = P + R, the per-head query/key width. */
export const qkHeadDim = (c: MlaConfig): number => c.qk_nope_head_dim + c.qk_rope_head_dim;

/** Width of one latent cache row: kv_lora_rank + qk_rope_head_dim (576 for GLM-5). */
export const latentWidth = (c: MlaConfig): number => c.kv_lora_rank + c.qk_rope_head_dim;

/** DeepSeek's yarn_get_mscale: 0.1·m·ln(factor) + 1 for factor > 1. */
export function yarnGetMscale(factor: number, mscale: number): number {
  return factor <= 1 ? 1 : 0.1 * mscale * Math.log(factor) + 1;
}

/**
 * Softmax scale used by BOTH paths: qk_head_dim^-0.5, times mscale² under YaRN
 * (vLLM DeepseekV2MLAAttention.scaling; HF DeepseekV3Attention). Never (L+R)^-0.5.
 */
export function softmaxScale(c: MlaConfig): number {
  const base = qkHeadDim(c) ** -0.5;
  if (!c.rope_scaling) return base;
  const m = yarnGetMscale(c.rope_scaling.factor, c.rope_scaling.mscale_all_dim);
  return base * m * m;
}

const POSITIVE_INT: (keyof MlaConfig)[] = [
  'hidden_size',
  'num_attention_heads',
  'q_lora_rank',
  'kv_lora_rank',
  'qk_nope_head_dim',
  'qk_rope_head_dim',
  'v_head_dim',
  'max_position_embeddings',
  'vocab_size',
];

/** Throws `invalid-config` naming the field when a dimension is unusable. */
export function validateConfig(c: MlaConfig, where: { file?: string; field?: string } = {}): MlaConfig {
  const fail = (key: string, msg: string, hint?: string): never => {
    throw new MlaDiffError('invalid-config', msg, { file: where.file, field: `${where.field ?? 'model'}.${key}` }, hint);
  };
  for (const k of POSITIVE_INT) {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v <= 0) fail(k, `must be a positive integer, got ${v}`);
  }
  checkConfigLimits(c, where);
  if (c.qk_rope_head_dim % 2 !== 0) {
    fail('qk_rope_head_dim', `must be even (RoPE rotates pairs), got ${c.qk_rope_head_dim}`);
  }
  // A config.json's 1e400 parses as Infinity: every float is checked finite.
  if (!(c.rope_theta > 1 && Number.isFinite(c.rope_theta))) fail('rope_theta', `must be finite and > 1, got ${c.rope_theta}`);
  if (!(c.rms_norm_eps > 0 && c.rms_norm_eps < 1)) fail('rms_norm_eps', `must be in (0, 1), got ${c.rms_norm_eps}`);
  const y = c.rope_scaling;
  const finite =
    y &&
    [y.factor, y.mscale, y.mscale_all_dim, y.beta_fast, y.beta_slow].every(Number.isFinite) &&
    y.original_max_position_embeddings <= 2 ** 24;
  if (y && !(finite && y.factor >= 1 && y.original_max_position_embeddings > 0 && y.beta_fast > y.beta_slow)) {
    fail('rope_scaling', 'needs finite values, factor ≥ 1, original_max_position_embeddings > 0 and beta_fast > beta_slow');
  }
  return c;
}
