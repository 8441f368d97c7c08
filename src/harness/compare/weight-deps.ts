import type { StageName } from '../../trace/stages';
import type { WeightName } from '../../core/weights/records';

const HIDDEN: WeightName[] = ['embed_tokens', 'input_layernorm'];
const Q: WeightName[] = [...HIDDEN, 'q_a_proj', 'q_a_layernorm', 'q_b_proj'];
const KV: WeightName[] = [...HIDDEN, 'kv_a_proj_with_mqa', 'kv_a_layernorm'];
const SCORES: WeightName[] = [...new Set([...Q, ...KV, 'W_UK' as const])];
const OUT: WeightName[] = [...SCORES, 'W_UV'];

/**
 * The weights a stage's value depends on, read off the math (mla-math.md §6): a weight that
 * differs between two sources can only move the stages downstream of it.
 */
export function weightsOf(stage: StageName): readonly WeightName[] {
  switch (stage) {
    case 'hidden_in':
      return HIDDEN;
    case 'q_c_raw':
      return [...HIDDEN, 'q_a_proj'];
    case 'q_c':
      return [...HIDDEN, 'q_a_proj', 'q_a_layernorm'];
    case 'q_full_prerope':
    case 'q_nope':
    case 'q_pe_raw':
    case 'q_pe':
    case 'q':
      return Q;
    case 'kv_lora':
    case 'kv_c':
    case 'k_pe_raw':
    case 'k_pe':
      return [...HIDDEN, 'kv_a_proj_with_mqa'];
    case 'kv_c_normed':
    case 'kv_cache':
    case 'ctx_workspace':
      return KV;
    case 'W_UK_T':
      return ['W_UK'];
    case 'W_UV':
      return ['W_UV'];
    case 'k_nope':
    case 'k':
      return [...KV, 'W_UK'];
    case 'v':
      return [...KV, 'W_UV'];
    case 'kv_nope':
      return [...KV, 'W_UK', 'W_UV'];
    case 'ql_nope':
    case 'mqa_q':
      return [...Q, 'W_UK'];
    case 'logits':
    case 'attn_probs':
    case 'lse':
    case 'suffix_lse':
    case 'chunk_lse':
    case 'context_lse':
    case 'split_lse':
      return SCORES;
    case 'attn_out_latent':
      return SCORES;
    case 'o_proj_out':
      return [...OUT, 'o_proj'];
    default:
      return OUT;
  }
}

/**
 * How far a stage may move between two sources of the same weights: GAIN·√(Σ ε_w²) over the
 * weights it depends on, ε_w = the relative quantization bound of weight w (both sources).
 * To first order a matmul carries a weight's relative error into its output unchanged and
 * independent errors add in quadrature; GAIN = 3 leaves room for RMSNorm and softmax, whose
 * sensitivity stays O(1) at the logit scales MLA runs at. FLOOR is fp32 accumulation noise.
 */
export const ACROSS_GAIN = 3;
export const ACROSS_FLOOR = 1e-5;

export function allowedAcross(stage: StageName, eps: ReadonlyMap<WeightName, number>): number {
  let s = 0;
  for (const w of weightsOf(stage)) s += (eps.get(w) ?? 0) ** 2;
  return ACROSS_FLOOR + ACROSS_GAIN * Math.sqrt(s);
}
