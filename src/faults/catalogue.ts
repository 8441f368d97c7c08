import type { StageName } from '../probes/stages';

/**
 * Faults that can be planted in one engine path from a scenario's `faults:` list, each modelled on a
 * real MLA bug (../shared/reference/gguf-and-bugs.md, Part B). Each names the stage where it enters,
 * which is where mla-diff must report the first divergence.
 */
export type FaultName = 'softmax-scale-latent' | 'rope-neox' | 'kv-norm-skipped' | 'lse-base-2';
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
    summary: 'log-sum-exp returned in base 2 where natural log is expected',
    bug: 'vllm-project/vllm#52796, sgl-project/sglang#40903 (base-2 LSE fed to a natural-log merge)',
  },
};

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(s: string): s is FaultName {
  return Object.prototype.hasOwnProperty.call(FAULTS, s);
}

/** The faults planted in one path. */
export type FaultSet = ReadonlySet<FaultName>;
export const NO_FAULTS: FaultSet = new Set();
