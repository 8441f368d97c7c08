// The mutant set of mla-mutant.mjs: one planted bug per name, none of them a fault of mla-diff's
// catalogue (src/core/faults/catalogue.ts), each realistic for an engine's MLA layer and valid at
// tiny and GLM-5 dims. `enters`: the first stage (of those the backend writes) the bug changes, where
// mla-diff must localize it; `piece`: the first piece it shows in ('first': step 0; 'context': the
// first piece with cached context; 'decode': the first decode); `causes`: the diagnoses (src/trace/names.ts
// CAUSES) that name it rightly (empty: no cause of the set describes it). Read by bench/mutants/score.mjs.

export const MUTANTS = {
  'latent-mean': {
    enters: 'attn_out_heads',
    piece: 'first',
    summary: 'attn_out_latent·W_UV averaged over the latent axis (an einsum mean where a sum belongs): ‖attn_out_heads‖ × 1/kv_lora_rank',
    story: "the GLM-5 bug hunt's attention output of norm 0.0586 against ~30",
    causes: ['norm-ratio'],
  },
  'scale-twice': {
    enters: 'logits',
    piece: 'first',
    summary: 'the softmax scale applied twice (folded into the query and again in the kernel): logits × softmax_scale',
    story: 'a q pre-scaled by sm_scale for a kernel that scales itself; the backend still reports the configured scale',
    causes: ['softmax-scale', 'norm-ratio', 'flat-softmax'],
  },
  'q-pe-position-shift': {
    enters: 'q_pe',
    piece: 'first',
    summary: 'q_pe rotated at position + 1 (k_pe at the position): the query side reads positions after the increment',
    story: 'positions taken from a sequence length already advanced for the token being written (off by one)',
    causes: ['rope-convention', 'rope-parameters'],
  },
  'k-pe-unrotated': {
    enters: 'k_pe',
    piece: 'first',
    summary: 'k_pe cached before RoPE: the key side is never rotated',
    story: 'a fused kv_a kernel whose rotary epilogue is compiled out for the MQA head (q rotated, k not)',
    causes: ['rope-convention', 'rope-parameters'],
  },
  'causal-off-by-one': {
    enters: 'attn_probs',
    piece: 'first',
    summary: 'the causal mask admits one key past the diagonal: token t sees token t + 1 of its own chunk',
    story: 'a mask built with <= on 1-based key indices against 0-based query positions',
    causes: ['causal-mask'],
  },
  'decode-before-write': {
    enters: 'logits',
    piece: 'decode',
    summary: 'a decode reads the cache before its own latent row is written: its own key slot still zeros (logit 0, value 0)',
    story: 'the cache write scheduled after the decode kernel on another stream (write-after-read order)',
    causes: [],
  },
  'half-heads': {
    enters: 'logits',
    piece: 'first',
    summary: 'the attention kernel runs over the first N/2 heads; the other half of its outputs stay as allocated (zeros)',
    story: 'num_heads divided by the tensor-parallel size twice when sizing the kernel grid',
    causes: ['head-subset'],
  },
  'q-norm-weight-twice': {
    enters: 'q_c',
    piece: 'first',
    summary: "q_a_layernorm's weight applied twice (the fused norm kernel and again folded into q_b_proj at load)",
    story: 'a loader that folds norm weights into the next projection for a kernel that also multiplies them',
    causes: ['norm-weight-ones', 'weight-differs'],
  },
  'kv-norm-576': {
    enters: 'kv_c_normed',
    piece: 'first',
    summary: "kv_a_layernorm's RMS taken over the whole (L+R)-wide kv_a row, k_pe included, before the split",
    story: "the norm run on kv_a_proj_with_mqa's output before it is split into kv_c and k_pe",
    causes: ['norm-rms'],
  },
  'empty-split-nan': {
    enters: 'attn_out_latent',
    piece: 'first',
    summary: 'a KV split with no visible key (causal prefill, or more splits than keys) normalized as 0/0: NaN enters the merge',
    story: 'a split-KV kernel used for a causal prefill without its empty-split guard (acc / l with l = 0)',
    causes: ['nan-origin', 'split-merge'],
  },
  'w-uv-neighbour-head': {
    enters: 'W_UV',
    piece: 'first',
    summary: "each head's W_UV taken from the next head's block of kv_b_proj (head h reads head h + 1, the last wraps)",
    story: 'a head stride of P+V applied after an offset of P+V (the V block located from the wrong head base)',
    causes: ['absorbed-weights', 'weight-differs'],
  },
  'k-pe-rerotated-context': {
    enters: 'kv_cache',
    piece: 'context',
    summary: 'k_pe of cached context rotated again when a later piece reads it (the cache holds rotated rows already)',
    story: 'a context gather that applies RoPE on read, written for a cache that stored unrotated keys',
    causes: ['context-only', 'rope-convention'],
  },
};

export const MUTANT_NAMES = Object.keys(MUTANTS);
