import { z } from 'zod';
import { count, finite, oneOf } from './json';

/**
 * Where each path stores a tensor in a narrower dtype than the fp32 it accumulates in: a scenario's
 * `dtype:`, `kv_cache_dtype:` and `rounding:` as data (it travels to the reference worker as is,
 * and is echoed in the report's `scenario.precision`). The rounding itself: src/core/precision.
 */
/** Storage formats an engine rounds activations, weights and its KV cache to (the rounding: src/core/precision/formats.ts). */
export const STORAGE_DTYPES = ['bfloat16', 'float16', 'fp8_e4m3'] as const;
export const storageDtype = oneOf(STORAGE_DTYPES);
export type StorageDtype = z.infer<typeof storageDtype>;
/** A stage's dtype as a path keeps it: float32 (no rounding) or a storage format. */
export const stageDtype = oneOf(['float32', ...STORAGE_DTYPES]);
export type StageDtype = z.infer<typeof stageDtype>;

export const ACTIVATION_DTYPES = ['float32', 'bfloat16', 'float16'] as const;
export const activationDtype = oneOf(ACTIVATION_DTYPES);
export type ActivationDtype = z.infer<typeof activationDtype>;
export const KV_CACHE_DTYPES = ['auto', 'fp8_e4m3'] as const;
export const kvCacheDtype = oneOf(KV_CACHE_DTYPES);
export type KvCacheDtype = z.infer<typeof kvCacheDtype>;

/**
 * Scales of an fp8 latent cache. `per-tensor`: one k_scale for every row (vLLM layer._k_scale,
 * 1.0 unless the checkpoint brings one), stored = sat_fp8(x / k_scale). `per-token`: DeepSeek-V3.2's
 * fp8_ds_mla layout, each row's kv_c_normed in tiles of 128 with an fp32 scale amax/448 each, k_pe
 * kept in the model dtype.
 */
export const cacheScale = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('per-tensor'), k_scale: finite }),
  z.strictObject({ kind: z.literal('per-token'), tile: count }),
]);
export type CacheScale = z.infer<typeof cacheScale>;

/**
 * The points a path can round at. Most are the stage of the same name (the value the path keeps
 * there); `attn_probs` is the softmax weights cast before the P·V product, `lse` the LSE tensor
 * a kernel writes, `attn_out_heads` every attention output a kernel or a merge writes (MHA: each
 * partial and merged output; MQA: the W_UV product), `ctx_workspace` the MHA context rows gathered
 * and dequantized from an fp8 cache, `latent_k` the keys Triton MLA dequantizes from an fp8 cache and
 * casts to the query dtype for Q·Kᵀ (its V stays fp32, so P is not cast then).
 */
export const ROUND_POINTS = [
  'hidden_in',
  'q_c_raw',
  'kv_lora',
  'q_c',
  'q_full_prerope',
  'kv_c_normed',
  'q_pe',
  'k_pe',
  'kv_nope',
  'ctx_workspace',
  'ql_nope',
  'latent_k',
  'attn_probs',
  'lse',
  'attn_out_latent',
  'attn_out_heads',
  'o_proj_out',
] as const;
export const roundPoint = oneOf(ROUND_POINTS);
export type RoundPoint = z.infer<typeof roundPoint>;

/** Kernels whose rounding points are known (docs/precision.md has the sources). */
export const KERNEL_PRESETS = ['vllm-fa3-prefill', 'vllm-triton-mla', 'vllm-flashmla'] as const;
export const kernelPreset = oneOf(KERNEL_PRESETS);
export type KernelPreset = z.infer<typeof kernelPreset>;

/** A path's rounding: a preset or an explicit list of points. */
export const pathRounding = z.union([kernelPreset, z.array(roundPoint).readonly()]);
export type PathRounding = z.infer<typeof pathRounding>;

/**
 * How the fp32 paths compute RoPE angles: `float64` exact (default; the reference always does); `float32` as engines do
 * (vLLM's cos_sin_cache, transformers' rotary embedding: inv_freq, YaRN's blend and position·inv_freq each rounded to fp32).
 */
export const ROPE_ANGLES = ['float64', 'float32'] as const;
export const ropeAngles = oneOf(ROPE_ANGLES);
export type RopeAngles = z.infer<typeof ropeAngles>;

export const precisionSpec = z.strictObject({
  dtype: activationDtype,
  kvCache: kvCacheDtype,
  cacheScale,
  /** mha and mqa as the scenario sets them; cold (the floor's plain implementation) rounds as mha's FA prefill. */
  rounding: z.strictObject({ mha: pathRounding, mqa: pathRounding }),
  /** The fp32 paths' RoPE angles (absent: float64). */
  ropeAngles: ropeAngles.optional(),
});
export type PrecisionSpec = z.infer<typeof precisionSpec>;
