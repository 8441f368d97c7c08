import type { StageName } from '../../trace/stages';
import { unitRoundoff } from '../../core/precision/formats';

/**
 * The rounding points of an engine path (llama.cpp) that our fp32 paths do not have, as storage terms added to a
 * record's noise floor for the engine's pairs (compare.ts externalTolerance; docs/llama-cpp.md, "Precision").
 */

/** Stages that read llama.cpp's K cache (its V is a view of it): they inherit its rounding. */
const READS_CACHE: ReadonlySet<StageName> = new Set<StageName>([
  'kv_cache',
  'logits',
  'attn_probs',
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
]);
const AFTER_SOFTMAX: ReadonlySet<StageName> = new Set<StageName>([
  'attn_probs',
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
  ...['lse', 'split_lse', 'suffix_lse', 'chunk_lse', 'context_lse', 'suffix_output', 'chunk_output', 'context_output'],
] as StageName[]);
const AFTER_PV: ReadonlySet<StageName> = new Set<StageName>(['attn_out_latent', 'attn_out_heads', 'attn_out', 'o_proj_out']);

/**
 * The storage term of an engine's own rounding points at `stage` (docs/llama-cpp.md, "Precision"): the K cache
 * stored in F16 (u/√3 per element, round to nearest), or flash attention's F16 copies of Q, K and V. A logit's
 * absolute error is its size times the key's relative rounding, so from the softmax on the term grows with the
 * logits' RMS `logitsRms` (≥ 1); the P·V product adds V's own rounding. 0 where the engine rounds as fp32 does.
 */
export function engineStorage(
  e: { cacheType: string; flashAttn: boolean; ropeAngleError: number; activation?: string } | undefined,
  stage: StageName,
  logitsRms: number,
): number {
  if (!e) return 0;
  const upstream = Math.hypot(ropeTerm(e.ropeAngleError, stage, logitsRms), activationTerm(e.activation, stage, logitsRms));
  if (!READS_CACHE.has(stage)) return upstream;
  const f16 = e.cacheType === 'f16';
  if (!f16 && !e.flashAttn) return upstream;
  if (stage === 'kv_cache') return Math.hypot(upstream, f16 ? unitRoundoff('float16') / Math.sqrt(3) : 0);
  const u = unitRoundoff('float16') / Math.sqrt(3);
  const roundings = e.flashAttn ? 2 : 1; // K, and with flash attention Q too
  let s = u * Math.sqrt(roundings);
  if (AFTER_SOFTMAX.has(stage)) s *= Math.max(1, logitsRms);
  if (AFTER_PV.has(stage)) s = Math.hypot(s, u * (e.flashAttn ? Math.SQRT2 : 1)); // V, and flash attention's F16 accumulation
  return Math.hypot(s, upstream);
}

const ROTATED: ReadonlySet<StageName> = new Set<StageName>(['q_pe', 'k_pe', 'q', 'mqa_q', 'k', 'kv_cache', 'ctx_workspace']);

/**
 * The float32 RoPE angles' term: the rotated rows carry δθ; a logit both of its rotated factors; from the softmax on (the LSEs
 * and every attention output, merged or not) × the logits' RMS.
 */
function ropeTerm(delta: number, stage: StageName, logitsRms: number): number {
  if (!delta) return 0;
  if (ROTATED.has(stage)) return delta;
  if (stage === 'logits') return delta * Math.SQRT2;
  if (AFTER_SOFTMAX.has(stage)) return delta * Math.SQRT2 * Math.max(1, logitsRms);
  return 0;
}

/**
 * RMS relative error of the activations a llama.cpp CPU product quantizes to its weights' vec_dot_type: a block's
 * scale is max|x|/127 and its rounding uniform over one step, RMS step/√12, relative to the block's RMS by its crest
 * factor (max/RMS: ≈ 3 for 32 Gaussian values, ≈ 3.6 for 256); F16 / BF16 round to nearest (u/√3).
 */
const ACTIVATION_ERROR: Record<string, number> = {
  f32: 0,
  f16: unitRoundoff('float16') / Math.sqrt(3),
  bf16: unitRoundoff('bfloat16') / Math.sqrt(3),
  q8_0: 3 / (127 * Math.sqrt(12)),
  q8_k: 3.6 / (127 * Math.sqrt(12)),
};

/** How many quantized products lie upstream of each stage, on the longest branch (q_a → q_b → k_b; kv_a; then v_b and o_proj). */
const PRODUCTS_BEFORE: Partial<Record<StageName, number>> = {
  ...{ q_c_raw: 1, q_c: 1, q_full_prerope: 2, q_nope: 2, q_pe_raw: 2, q_pe: 2, q: 2, kv_lora: 1, kv_c: 1, kv_c_normed: 1 },
  ...{ k_pe_raw: 1, k_pe: 1, kv_cache: 1, ql_nope: 3, mqa_q: 3, kv_nope: 2, k_nope: 2, v: 2, k: 2, logits: 4, attn_probs: 4 },
  ...{ attn_out_latent: 5, attn_out_heads: 6, attn_out: 6, o_proj_out: 7, ctx_workspace: 1 },
  ...{ lse: 4, split_lse: 4, suffix_lse: 4, chunk_lse: 4, context_lse: 4, suffix_output: 6, chunk_output: 6, context_output: 6 },
};

function activationTerm(activation: string | undefined, stage: StageName, logitsRms: number): number {
  const eps = ACTIVATION_ERROR[activation ?? 'f32'] ?? 0;
  const n = PRODUCTS_BEFORE[stage] ?? 0;
  if (!eps || !n) return 0;
  return eps * Math.sqrt(n) * (AFTER_SOFTMAX.has(stage) ? Math.max(1, logitsRms) : 1);
}

/** A third party's reported precision as the activation rounding of activationTerm (float32 and unknown: none). */
const PRECISION_ACTIVATION: Record<string, string> = { bfloat16: 'bf16', bf16: 'bf16', float16: 'f16', fp16: 'f16', f16: 'f16' };

/**
 * The rounding points any third party may have that our paths do not, at `stage`: an engine's own (engineStorage), else
 * RoPE angles computed in fp32 (ExternalInfo.ropeAngleError) and, for a backend that reports a 16-bit precision while our
 * paths run fp32, its activations rounded at every product. 0 where nothing is known.
 */
export function thirdPartyTerm(
  info: { engine?: Parameters<typeof engineStorage>[0]; ropeAngleError?: number; precision?: string } | undefined,
  stage: StageName,
  logitsRms: number,
  pathsNarrow: boolean,
): number {
  if (!info) return 0;
  if (info.engine) return engineStorage(info.engine, stage, logitsRms);
  const act = pathsNarrow ? undefined : PRECISION_ACTIVATION[(info.precision ?? '').toLowerCase()];
  return Math.hypot(ropeTerm(info.ropeAngleError ?? 0, stage, logitsRms), activationTerm(act, stage, logitsRms));
}
