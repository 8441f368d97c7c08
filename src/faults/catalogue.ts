import type { StageName } from '../probes/stages';

/**
 * Faults that can be planted in one engine path from a scenario's `faults:` list, each modelled on a
 * real MLA bug (../shared/reference/gguf-and-bugs.md, Part B). Each names the stage where it enters,
 * which is where mla-diff must report the first divergence.
 */
export type FaultName =
  | 'softmax-scale-latent' | 'rope-neox' | 'kv-norm-skipped' | 'lse-base-2'
  | 'merge-inf-unhandled' | 'lse-layout-transposed' | 'split-merge-base-2';
export type FaultPath = 'mha' | 'mqa';

export interface FaultDef {
  enters: StageName;
  summary: string;
  bug: string;
}

export const FAULTS: Record<FaultName, FaultDef> = {
  'softmax-scale-latent': {
    enters: 'logits',
    summary: 'softmax scale from the 576-wide latent, (kv_lora_rank + qk_rope_head_dim)^-0.5, instead of qk_head_dim^-0.5',
    bug: 'MetaX-MACA/vLLM-metax#113 (review suggestion); FlashMLA default softmax_scale=None',
  },
  'rope-neox': {
    enters: 'q_pe',
    summary: 'NeoX split-half RoPE instead of GPT-J interleaved pairs (rope_interleave: true)',
    bug: 'huggingface/transformers#46372 (GLM-5 main MLA RoPE applied split-half)',
  },
  'kv-norm-skipped': {
    enters: 'kv_c_normed',
    summary: 'kv_a_layernorm skipped before the latent is cached',
    bug: 'norm applied before caching in one path and not the other (aesthetics.md traps)',
  },
  'lse-base-2': {
    enters: 'lse',
    summary: 'the attention kernels return their log-sum-exp in base 2; with context the natural-log merge_attn_states consumes it',
    bug: 'vllm-project/vllm#52796, sgl-project/sglang#40903 (base-2 LSE fed to a natural-log merge)',
  },
  'merge-inf-unhandled': {
    enters: 'context_output',
    summary: 'merge_attn_states takes an empty chunk\'s +inf LSE (FA2) as is instead of mapping it to −inf',
    bug: 'vllm-project/vllm#15492 (FA2 +inf vs FA3 −inf LSE for empty context in MLA chunked prefill)',
  },
  'lse-layout-transposed': {
    enters: 'context_lse',
    summary: 'a context-chunk kernel returns its LSE as [tokens, heads] and the merge reads it as [heads, tokens]',
    bug: 'vllm-project/vllm#57012 (ROCm flash_attn LSE layout not transposed)',
  },
  'split-merge-base-2': {
    enters: 'lse',
    summary: 'the split-KV combine uses exp2/log2 on natural-log split LSEs',
    bug: 'sgl-project/sglang#33064 (FlashMLA natural-log LSE combined as base 2 in DCP)',
  },
};

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(s: string): s is FaultName {
  return Object.prototype.hasOwnProperty.call(FAULTS, s);
}

/** The faults planted in one path. */
export type FaultSet = ReadonlySet<FaultName>;
export const NO_FAULTS: FaultSet = new Set();
