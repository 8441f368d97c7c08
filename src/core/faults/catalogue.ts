import type { FaultName } from '../../trace/faults';
import { FAULT_NAMES } from '../../trace/faults';
import type { StageName } from '../../trace/stages';

/**
 * Faults that can be planted in one engine path from a scenario's `faults:` list, each modelled on a
 * real MLA bug (../shared/reference/gguf-and-bugs.md, Part B). Each names the stage where it enters,
 * which is where mla-diff must report the first divergence.
 */
export type { FaultName } from '../../trace/faults';
export type FaultPath = 'mha' | 'mqa';

/**
 * What a scenario needs for the fault to change anything: any prefill; a YaRN config (rope_scaling);
 * a prefill with cached context (and FA2's +inf empty-chunk LSE for merge-inf-unhandled); KV splits;
 * qk_nope_head_dim = v_head_dim (W_UK and W_UV of one shape); context with v_head_dim < qk_head_dim.
 */
export type FaultNeeds = 'prefill' | 'yarn' | 'context' | 'context-fa2' | 'kv-splits' | 'p-eq-v' | 'context-v-lt-d';

export interface FaultDef {
  enters: StageName;
  /** Other stages of the same piece the fault itself changes (a stage replay marks them introduced too). */
  alsoEnters?: readonly StageName[];
  summary: string;
  bug: string;
  needs: FaultNeeds;
  /** The paths it can be planted in (both unless the code it breaks exists in one only). */
  paths: readonly FaultPath[];
}

/** sglang#18396's checkpoint k_scale, multiplied into BMM1 although the cache is BF16. */
export const K_SCALE = 0.06;
const BOTH: readonly FaultPath[] = ['mha', 'mqa'];

export const FAULTS: Record<FaultName, FaultDef> = {
  'softmax-scale-latent': {
    enters: 'logits',
    summary: 'softmax scale from the 576-wide latent, (kv_lora_rank + qk_rope_head_dim)^-0.5, instead of qk_head_dim^-0.5',
    bug: 'MetaX-MACA/vLLM-metax#113 (review suggestion); FlashMLA default softmax_scale=None',
    needs: 'prefill',
    paths: BOTH,
  },
  'rope-neox': {
    enters: 'q_pe',
    alsoEnters: ['k_pe'],
    summary: 'NeoX split-half RoPE instead of GPT-J interleaved pairs (rope_interleave: true)',
    bug: 'huggingface/transformers#46372 (GLM-5 main MLA RoPE applied split-half)',
    needs: 'prefill',
    paths: BOTH,
  },
  'kv-norm-skipped': {
    enters: 'kv_c_normed',
    summary: 'kv_a_layernorm skipped before the latent is cached',
    bug: 'a porting slip with no single public report: kv_a_layernorm applied before caching in one path and not in the other',
    needs: 'prefill',
    paths: BOTH,
  },
  'lse-base-2': {
    enters: 'lse',
    summary: 'the attention kernels return their log-sum-exp in base 2; with context the natural-log merge_attn_states consumes it',
    bug: 'vllm-project/vllm#52796, sgl-project/sglang#40903 (base-2 LSE fed to a natural-log merge)',
    needs: 'prefill',
    paths: BOTH,
  },
  'merge-inf-unhandled': {
    enters: 'context_output',
    alsoEnters: ['context_lse'],
    summary: "merge_attn_states takes an empty chunk's +inf LSE (FA2) as is instead of mapping it to −inf",
    bug: 'vllm-project/vllm#15492 (FA2 +inf vs FA3 −inf LSE for empty context in MLA chunked prefill)',
    needs: 'context-fa2',
    paths: ['mha'],
  },
  'lse-layout-transposed': {
    enters: 'context_lse',
    summary: 'a context-chunk kernel returns its LSE as [tokens, heads] and the merge reads it as [heads, tokens]',
    bug: 'vllm-project/vllm#57012 (ROCm flash_attn LSE layout not transposed)',
    needs: 'context',
    paths: ['mha'],
  },
  'split-merge-base-2': {
    enters: 'lse',
    alsoEnters: ['attn_out_latent'],
    summary: 'the split-KV combine uses exp2/log2 on natural-log split LSEs',
    bug: 'sgl-project/sglang#33064 (FlashMLA natural-log LSE combined as base 2 in DCP)',
    needs: 'kv-splits',
    paths: ['mqa'],
  },
  'k-scale-bf16-cache': {
    enters: 'logits',
    summary:
      `the checkpoint's k_scale (${K_SCALE}) multiplied into the QK product although the cache is BF16: ` +
      'scores ~16× too small, softmax near uniform',
    bug: 'sgl-project/sglang#18396 (TRT-LLM MLA backend applied k_scale to a BF16 KV cache)',
    needs: 'prefill',
    paths: BOTH,
  },
  'yarn-mscale-missing': {
    enters: 'logits',
    summary: "softmax scale qk_head_dim^-0.5 without YaRN's mscale² (0.1·mscale_all_dim·ln(factor) + 1)²",
    bug: 'huggingface/transformers#47435 (DeepSeek-V2, Mistral 4), onnxruntime/mobius#548',
    needs: 'yarn',
    paths: BOTH,
  },
  'yarn-log-mul-misread': {
    enters: 'logits',
    summary: "GGUF's yarn_log_multiplier (= 0.1·mscale_all_dim) read as mscale_all_dim: the log term of mscale 10× too small",
    bug: 'ggml-org/llama.cpp#17945 and its regression fix #18006 (legacy pre-scaled yarn_log_multiplier)',
    needs: 'yarn',
    paths: BOTH,
  },
  'rope-mscale-inflated': {
    enters: 'q_pe',
    alsoEnters: ['k_pe'],
    summary:
      'RoPE cos/sin scaled by get_mscale(factor, mscale_all_dim) instead of the ratio ' +
      'get_mscale(factor, mscale)/get_mscale(factor, mscale_all_dim)',
    bug: 'kekzl/imp#880 (cos/sin inflated 1.261×); NVIDIA/Megatron-LM#1429 (mscale vs mscale_all_dim)',
    needs: 'yarn',
    paths: BOTH,
  },
  'w-uk-wrong-axis': {
    enters: 'W_UK_T',
    summary: "W_UK_T built from kv_b_proj's [N, P, L] K block by a reshape to [N, L, P] and a transpose (a view where a permute was due)",
    bug:
      'ikawrakow/ik_llama.cpp#259 (wk_b computed on the fly broke generation); ' +
      'vllm-project/vllm#13181 (absorbed weights derived separately from the GEMM weights)',
    needs: 'prefill',
    paths: ['mqa'],
  },
  'k-pe-per-head': {
    enters: 'k',
    summary:
      'k_pe broadcast to every head before RoPE, rotated by a kernel that walks the head axis as the sequence axis: ' +
      'head h at position + h (head 0 right)',
    bug: 'elixir-nx/emlx#121 (mlx fast::rope on [B,T,H,D] rotates head h by position + h; only head 0 right)',
    needs: 'prefill',
    paths: ['mha'],
  },
  'w-uk-uv-swapped': {
    enters: 'W_UK_T',
    alsoEnters: ['W_UV'],
    summary:
      'W_UK and W_UV swapped when both blocks have one shape (qk_nope_head_dim = v_head_dim, DeepSeek-V3 128/128): ' +
      'W_UK_T built from the V block, W_UV from the K block',
    bug:
      'split attn_k_b/attn_v_b GGUF tensors (ggml-org/llama.cpp#12801) hand a loader two same-shaped blocks; ' +
      'no public report of this swap found',
    needs: 'p-eq-v',
    paths: ['mqa'],
  },
  'v-unpadded-before-merge': {
    enters: 'context_output',
    alsoEnters: ['attn_out_heads'],
    summary:
      "FlashAttention's V-padded [T,N,qk_head_dim] outputs unpadded to v_head_dim before merge_attn_states, " +
      'which reads them as dense [T,N,V]',
    bug: 'vllm-project/vllm#42642 (V unpadding moved inside the prefill backend, before the chunked-context merge; DeepSeek 192/128)',
    needs: 'context-v-lt-d',
    paths: ['mha'],
  },
  'absorbed-fp16': {
    enters: 'ql_nope',
    summary:
      'the absorbed q_nope·W_UK_T product stored in fp16 whatever the model dtype: rounded to 11 bits, ' +
      'and past ±65504 it overflows to ±inf (then NaN in the softmax)',
    bug:
      'ggml-org/llama.cpp#12801 and #11446 (the wk_b multiply of DeepSeek MLA overflowing in F16), ' +
      '#13137 (batched cuBLAS ignoring GGML_PREC_F32)',
    needs: 'prefill',
    paths: ['mqa'],
  },
  'lse-bf16-merge': {
    enters: 'suffix_lse',
    alsoEnters: ['chunk_lse'],
    summary:
      'the partial LSEs stored in bf16 before merge_attn_states: ' +
      'each weight exp(lse − max) off by up to |lse|·2^-8 (the bf16 unit roundoff)',
    bug: "vllm-project/vllm#47800 (TRITON_MLA's bf16 LSE fed to a merge); ROCm/aiter#3542 (bf16 precision loss in the stage-2 merge)",
    needs: 'context',
    paths: ['mha'],
  },
};

export { FAULT_NAMES };

export function isFaultName(s: string): s is FaultName {
  return Object.prototype.hasOwnProperty.call(FAULTS, s);
}

/** The faults planted in one path. */
export type FaultSet = ReadonlySet<FaultName>;
export const NO_FAULTS: FaultSet = new Set();
