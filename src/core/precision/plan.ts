import type { DevicePath, StageName } from '../../trace/stages';
import type { StageDtype, StorageDtype } from './formats';
import type { KernelPreset, PrecisionSpec, RoundPoint } from '../../trace';

/**
 * Where each path stores a tensor in a narrower dtype than the fp32 it accumulates in: a scenario's
 * `dtype:`, `kv_cache_dtype:` and `rounding:` as data (it travels to the reference worker as is).
 * The spec and its closed sets are the report's (src/trace/precision.ts); the rounding plan is here.
 */
export type { ActivationDtype, CacheScale, KernelPreset, KvCacheDtype, PathRounding, PrecisionSpec, RoundPoint } from '../../trace';
export { ACTIVATION_DTYPES, KERNEL_PRESETS, KV_CACHE_DTYPES, ROUND_POINTS } from '../../trace';

/** vLLM's layers around attention: every linear and norm writes the model dtype. */
const COMMON: readonly RoundPoint[] = [
  'hidden_in',
  'q_c_raw',
  'kv_lora',
  'q_c',
  'q_full_prerope',
  'kv_c_normed',
  'q_pe',
  'k_pe',
  'o_proj_out',
];

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

export const FP32_PRECISION: PrecisionSpec = {
  dtype: 'float32',
  kvCache: 'auto',
  cacheScale: { kind: 'per-tensor', k_scale: 1 },
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
  hidden_in: ['hidden_in'],
  q_c_raw: ['q_c_raw'],
  kv_lora: ['kv_lora', 'kv_c', 'k_pe_raw'],
  q_c: ['q_c'],
  q_full_prerope: ['q_full_prerope', 'q_nope', 'q_pe_raw'],
  kv_c_normed: ['kv_c_normed'],
  q_pe: ['q_pe', 'q'],
  k_pe: ['k_pe'],
  kv_nope: ['kv_nope', 'k_nope', 'v', 'k'],
  ctx_workspace: ['ctx_workspace'],
  ql_nope: ['ql_nope', 'mqa_q'],
  latent_k: [],
  attn_probs: [],
  lse: ['lse'],
  attn_out_latent: ['attn_out_latent'],
  attn_out_heads: ['attn_out_heads', 'attn_out', 'suffix_output', 'chunk_output', 'context_output'],
  o_proj_out: ['o_proj_out'],
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
