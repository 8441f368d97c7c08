import type { DevicePath, StageName } from '../probes/stages';
import type { StageDtype, StorageDtype } from './formats';

/**
 * Where each path stores a tensor in a narrower dtype than the fp32 it accumulates in: a scenario's
 * `dtype:`, `kv_cache_dtype:` and `rounding:` as data (it travels to the reference worker as is).
 */
export type ActivationDtype = 'float32' | 'bfloat16' | 'float16';
export const ACTIVATION_DTYPES: readonly ActivationDtype[] = ['float32', 'bfloat16', 'float16'];
export type KvCacheDtype = 'auto' | 'fp8_e4m3';
export const KV_CACHE_DTYPES: readonly KvCacheDtype[] = ['auto', 'fp8_e4m3'];

/**
 * Scales of an fp8 latent cache. `per-tensor`: one k_scale for every row (vLLM layer._k_scale,
 * 1.0 unless the checkpoint brings one), stored = sat_fp8(x / k_scale). `per-token`: DeepSeek-V3.2's
 * fp8_ds_mla layout, each row's kv_c_normed in tiles of 128 with an fp32 scale amax/448 each, k_pe
 * kept in the model dtype.
 */
export type CacheScale = { kind: 'per-tensor'; k_scale: number } | { kind: 'per-token'; tile: number };

/**
 * The points a path can round at. Most are the stage of the same name (the value the path keeps
 * there); `attn_probs` is the softmax weights cast before the P·V product, `lse` the LSE tensor
 * a kernel writes, `attn_out_heads` every attention output a kernel or a merge writes (MHA: each
 * partial and merged output; MQA: the W_UV product), `ctx_workspace` the MHA context rows gathered
 * and dequantized from an fp8 cache, `latent_k` the keys Triton MLA dequantizes from an fp8 cache and
 * casts to the query dtype for Q·Kᵀ (its V stays fp32, so P is not cast then).
 */
export type RoundPoint =
  | 'hidden_in' | 'q_c_raw' | 'kv_lora' | 'q_c' | 'q_full_prerope' | 'kv_c_normed' | 'q_pe' | 'k_pe'
  | 'kv_nope' | 'ctx_workspace' | 'ql_nope' | 'latent_k' | 'attn_probs' | 'lse' | 'attn_out_latent' | 'attn_out_heads' | 'o_proj_out';
export const ROUND_POINTS: readonly RoundPoint[] = ['hidden_in', 'q_c_raw', 'kv_lora', 'q_c', 'q_full_prerope', 'kv_c_normed', 'q_pe', 'k_pe',
  'kv_nope', 'ctx_workspace', 'ql_nope', 'latent_k', 'attn_probs', 'lse', 'attn_out_latent', 'attn_out_heads', 'o_proj_out'];

/** Kernels whose rounding points are known (docs/precision.md has the sources). */
export type KernelPreset = 'vllm-fa3-prefill' | 'vllm-triton-mla' | 'vllm-flashmla';
export const KERNEL_PRESETS: readonly KernelPreset[] = ['vllm-fa3-prefill', 'vllm-triton-mla', 'vllm-flashmla'];

/** vLLM's layers around attention: every linear and norm writes the model dtype. */
const COMMON: readonly RoundPoint[] = ['hidden_in', 'q_c_raw', 'kv_lora', 'q_c', 'q_full_prerope', 'kv_c_normed', 'q_pe', 'k_pe', 'o_proj_out'];

export const PRESET_POINTS: Record<KernelPreset, readonly RoundPoint[]> = {
  // forward_mha: kv_b_proj writes k_nope/v in the model dtype; FlashAttention casts P before P·V and
  // writes O in the input dtype, LSE in fp32; merge_attn_states writes O in the input dtype; an fp8
  // context is dequantized into a model-dtype workspace.
  'vllm-fa3-prefill': [...COMMON, 'kv_nope', 'ctx_workspace', 'attn_probs', 'attn_out_heads'],
  // forward_mqa with Triton MLA: the ql_nope bmm writes bf16; P cast to the cache dtype before P·V;
  // split partials in fp32, the merged latent output and the LSE tensor in the query dtype; _v_up_proj bmm in bf16.
  'vllm-triton-mla': [...COMMON, 'ql_nope', 'attn_probs', 'attn_out_latent', 'lse', 'attn_out_heads'],
  // forward_mqa with FlashMLA: as Triton MLA but softmax_lse stays fp32.
  'vllm-flashmla': [...COMMON, 'ql_nope', 'attn_probs', 'attn_out_latent', 'attn_out_heads'],
};

/** A path's rounding: a preset or an explicit list of points. */
export type PathRounding = KernelPreset | readonly RoundPoint[];

export interface PrecisionSpec {
  dtype: ActivationDtype;
  kvCache: KvCacheDtype;
  cacheScale: CacheScale;
  /** mha and mqa as the scenario sets them; cold (the floor's plain implementation) rounds as mha's FA prefill. */
  rounding: { mha: PathRounding; mqa: PathRounding };
}

export const FP32_PRECISION: PrecisionSpec = {
  dtype: 'float32', kvCache: 'auto', cacheScale: { kind: 'per-tensor', k_scale: 1 },
  rounding: { mha: 'vllm-fa3-prefill', mqa: 'vllm-triton-mla' },
};

/** Whether anything rounds: a narrower dtype or an fp8 cache. */
export const rounds = (p: PrecisionSpec): boolean => p.dtype !== 'float32' || p.kvCache !== 'auto';

/** The points a device path rounds at (none in float32, whatever the preset). */
export function pathPoints(p: PrecisionSpec, path: DevicePath): ReadonlySet<RoundPoint> {
  if (p.dtype === 'float32') return new Set();
  const r = path === 'cold' ? 'vllm-fa3-prefill' : p.rounding[path];
  if (r === 'vllm-triton-mla' && p.kvCache === 'fp8_e4m3') {
    return new Set([...PRESET_POINTS[r].filter((x) => x !== 'attn_probs'), 'latent_k']); // triton_decode_attention with an fp8 cache
  }
  return new Set(typeof r === 'string' ? PRESET_POINTS[r] : r);
}

/** Stages whose recorded value a rounding point sets (what the norm-trace table labels with a dtype). */
const POINT_STAGES: Record<RoundPoint, readonly StageName[]> = {
  hidden_in: ['hidden_in'], q_c_raw: ['q_c_raw'], kv_lora: ['kv_lora', 'kv_c', 'k_pe_raw'], q_c: ['q_c'],
  q_full_prerope: ['q_full_prerope', 'q_nope', 'q_pe_raw'], kv_c_normed: ['kv_c_normed'], q_pe: ['q_pe', 'q'], k_pe: ['k_pe'],
  kv_nope: ['kv_nope', 'k_nope', 'v', 'k'], ctx_workspace: ['ctx_workspace'], ql_nope: ['ql_nope', 'mqa_q'], latent_k: [], attn_probs: [],
  lse: ['lse'], attn_out_latent: ['attn_out_latent'],
  attn_out_heads: ['attn_out_heads', 'attn_out', 'suffix_output', 'chunk_output', 'context_output'], o_proj_out: ['o_proj_out'],
};

/** Per stage, the dtype a path keeps it in (only stages that are not fp32; the cache in its own dtype). */
export function stageDtypes(p: PrecisionSpec, path: DevicePath): Partial<Record<StageName, StageDtype>> {
  const out: Partial<Record<StageName, StageDtype>> = {};
  const points = pathPoints(p, path);
  if (p.dtype !== 'float32') {
    for (const pt of points) for (const s of POINT_STAGES[pt]) out[s] = p.dtype as StorageDtype;
    if (path === 'mqa') out.W_UK_T = out.W_UV = p.dtype as StorageDtype; // views of kv_b_proj, stored in the model dtype
  }
  const cache = cacheDtype(p);
  if (cache !== 'float32') out.kv_cache = cache;
  if (p.kvCache === 'fp8_e4m3' && path === 'mha' && !points.has('ctx_workspace')) out.ctx_workspace = 'fp8_e4m3';
  return out;
}

/** What the latent cache stores: fp8, else the model dtype. */
export const cacheDtype = (p: PrecisionSpec): StageDtype => (p.kvCache === 'fp8_e4m3' ? 'fp8_e4m3' : p.dtype);
