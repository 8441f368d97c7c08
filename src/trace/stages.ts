/**
 * The stage ontology: every named intermediate of the MLA paths (mla-math.md §6), its canonical
 * layout, which paths produce it and how they are compared there.
 *
 * Layouts are axis names separated by spaces. A path may tap a stage in its own layout (the MQA
 * LSE is [T, N] as Triton MLA returns it, the MHA LSE [N, T] as FlashAttention does); comparison
 * first permutes every side to the canonical layout. Axes: t query token, s key position,
 * h head, d hidden, q q_lora, c latent row (L+R), l kv_lora, r rope, p nope, e qk head dim (P+R),
 * v v head dim, pv per-head kv_b output (P+V), hv flattened heads·v, k KV split.
 *
 * Paths: `mha` vLLM forward_mha (context through chunked workspace gathers and LSE merges), `mqa`
 * vLLM forward_mqa (absorbed, over the paged latent cache, split-KV), `cold` Hugging Face eager in
 * fp32 (expanded K/V cache, one softmax over every key), `reference` the same in float64,
 * `external` a user's backend or an engine's dump (docs/external-backends.md): it is in no stage's
 * `paths` list; it records whatever it returns.
 */
export type PathName = 'mha' | 'mqa' | 'cold' | 'reference' | 'external';
export const PATH_NAMES: readonly PathName[] = ['mha', 'mqa', 'cold', 'reference', 'external'];
/** The fp32 paths that run on the tfjs device. */
export type DevicePath = Exclude<PathName, 'reference' | 'external'>;

/**
 * How the paths meet at a stage: `elementwise` same layout; `up-to-layout` after permuting to the
 * canonical layout; `one-sided` one engine path has it (judged against cold and the reference);
 * `derived` the MQA side is a probe-only product of its absorbed weights (k_nope ≡ kv_c_normed·W_UK_T[h]ᵀ).
 */
export type Comparison = 'elementwise' | 'up-to-layout' | 'one-sided' | 'derived';
export type StageGroup = 'pre-attention' | 'weights' | 'mha' | 'mqa' | 'attention' | 'context' | 'post';
export type StageKind = 'activation' | 'weight';

export interface StageDef {
  layout: string;
  shape: string;
  group: StageGroup;
  kind: StageKind;
  paths: readonly PathName[];
  compare: Comparison;
  /** Recorded once per context chunk. */
  chunked?: true;
  doc: string;
}

const ALL: readonly PathName[] = ['mha', 'mqa', 'cold', 'reference'];
const MHA: readonly PathName[] = ['mha', 'cold', 'reference'];
const MQA: readonly PathName[] = ['mqa', 'reference'];
const CTX: readonly PathName[] = ['mha', 'reference'];
const def = (
  group: StageGroup,
  paths: readonly PathName[],
  compare: Comparison,
  layout: string,
  shape: string,
  doc: string,
  chunked?: true,
): StageDef => ({ layout, shape, group, kind: 'activation', paths, compare, doc, ...(chunked ? { chunked } : {}) });
const pre = (layout: string, shape: string, doc: string) => def('pre-attention', ALL, 'elementwise', layout, shape, doc);

/** In pipeline order within one piece of a step: the first divergent stage is the first in this order. */
export const STAGES = {
  hidden_in: pre('t d', '[T,H]', 'attention input: input_layernorm(embeddings)'),
  q_c_raw: pre('t q', '[T,Lq]', 'q_a_proj(hidden_in)'),
  kv_lora: pre('t c', '[T,L+R]', 'kv_a_proj_with_mqa(hidden_in)'),
  q_c: pre('t q', '[T,Lq]', 'q_a_layernorm(q_c_raw)'),
  q_full_prerope: pre('t h e', '[T,N,D]', 'q_b_proj(q_c).view(T, N, D)'),
  q_nope: pre('t h p', '[T,N,P]', 'q[..., :P]'),
  q_pe_raw: pre('t h r', '[T,N,R]', 'q[..., P:] before RoPE'),
  kv_c: pre('t l', '[T,L]', 'kv_lora[:, :L]'),
  k_pe_raw: pre('t r', '[T,R]', 'kv_lora[:, L:] before RoPE'),
  kv_c_normed: pre('t l', '[T,L]', 'kv_a_layernorm(kv_c)'),
  q_pe: pre('t h r', '[T,N,R]', 'RoPE(q_pe_raw, positions)'),
  k_pe: pre('t r', '[T,R]', 'RoPE(k_pe_raw, positions), one head shared by all'),
  q: pre('t h e', '[T,N,D]', 'cat(q_nope, q_pe): the query handed to attention'),
  kv_cache: pre(
    's c',
    '[S,L+R]',
    "the request's latent rows [kv_c_normed | k_pe] after this step's write, read back through its block table",
  ),
  W_UK_T: {
    layout: 'h p l',
    shape: '[N,P,L]',
    group: 'weights',
    kind: 'weight',
    paths: MQA,
    compare: 'one-sided',
    doc: 'kv_b_proj.weight.T.view(L, N, P+V)[..., :P].permute(1, 2, 0) (process_weights_after_loading)',
  },
  W_UV: {
    layout: 'h l v',
    shape: '[N,L,V]',
    group: 'weights',
    kind: 'weight',
    paths: MQA,
    compare: 'one-sided',
    doc: 'kv_b_proj.weight.T.view(L, N, P+V)[..., P:].transpose(0, 1)',
  },
  kv_nope: def('mha', MHA, 'one-sided', 't h pv', '[T,N,P+V]', "kv_b_proj(kv_c_normed).view(T, N, P+V) of the step's tokens"),
  k_nope: def('mha', ALL, 'derived', 't h p', '[T,N,P]', 'kv_nope[..., :P]; MQA side: kv_c_normed·W_UK_T[h]ᵀ (probe-only)'),
  v: def('mha', ALL, 'derived', 't h v', '[T,N,V]', 'kv_nope[..., P:]; MQA side: kv_c_normed·W_UV[h] (probe-only)'),
  k: def('mha', MHA, 'one-sided', 't h e', '[T,N,D]', 'cat(k_nope, k_pe broadcast over heads)'),
  ql_nope: def('mqa', MQA, 'one-sided', 't h l', '[T,N,L]', 'bmm(q_nopeᵀ, W_UK_T)ᵀ: W_UK absorbed into the query'),
  mqa_q: def('mqa', MQA, 'one-sided', 't h c', '[T,N,L+R]', 'cat(ql_nope, q_pe): the 576-wide MQA query'),
  logits: def(
    'attention',
    ALL,
    'up-to-layout',
    'h t s',
    '[N,T,S]',
    'softmax_scale·q·kᵀ over every key, before the causal mask (probe-only; MHA only without context)',
  ),
  attn_probs: def(
    'attention',
    ALL,
    'up-to-layout',
    'h t s',
    '[N,T,S]',
    'causal softmax of the logits (probe-only; MHA only without context)',
  ),
  suffix_output: def(
    'context',
    CTX,
    'one-sided',
    't h v',
    '[T,N,V]',
    "with context: causal attention over the step's own tokens (forward_mha new tokens)",
  ),
  suffix_lse: def('context', CTX, 'one-sided', 'h t', '[N,T]', 'its LSE, natural log, FlashAttention layout'),
  ctx_workspace: def(
    'context',
    CTX,
    'one-sided',
    's c',
    '[C_i,L+R]',
    'context chunk i gathered from the paged cache into the workspace',
    true,
  ),
  chunk_output: def('context', CTX, 'one-sided', 't h v', '[T,N,V]', 'attention over chunk i, no mask (kv_b_proj of the workspace)', true),
  chunk_lse: def('context', CTX, 'one-sided', 'h t', '[N,T]', 'its LSE (−inf, or +inf for FA2, on an empty chunk)', true),
  context_output: def('context', CTX, 'one-sided', 't h v', '[T,N,V]', 'running merge_attn_states over chunks 0..i', true),
  context_lse: def('context', CTX, 'one-sided', 'h t', '[N,T]', 'running merged LSE', true),
  split_lse: def('mqa', MQA, 'one-sided', 't h k', '[T,N,splits]', 'Triton split-KV: the LSE of each key split before the split merge'),
  lse: def(
    'attention',
    ALL,
    'up-to-layout',
    'h t',
    '[N,T]',
    'log-sum-exp over every key the query sees, natural log (merged over chunks or splits)',
  ),
  attn_out_latent: def('mqa', MQA, 'one-sided', 't h l', '[T,N,L]', 'Σ_s p·kv_c_normed[s]: attention output in latent space'),
  attn_out_heads: def(
    'attention',
    ALL,
    'elementwise',
    't h v',
    '[T,N,V]',
    'per-head attention output (MHA: merged; MQA: attn_out_latent·W_UV[h])',
  ),
  attn_out: def('post', ALL, 'elementwise', 't hv', '[T,N·V]', 'heads flattened: the mla_attn output'),
  o_proj_out: def('post', ALL, 'elementwise', 't d', '[T,H]', 'o_proj(attn_out) (a partial sum under tensor parallelism)'),
} as const satisfies Record<string, StageDef>;

export type StageName = keyof typeof STAGES;
export const STAGE_NAMES = Object.keys(STAGES) as StageName[];

export function isStageName(s: string): s is StageName {
  return Object.prototype.hasOwnProperty.call(STAGES, s);
}

export function stageIndex(s: StageName): number {
  return STAGE_NAMES.indexOf(s);
}

const FIRST_CHUNKED = STAGE_NAMES.findIndex((s) => (STAGES[s] as StageDef).chunked);
const CHUNKED_COUNT = STAGE_NAMES.filter((s) => (STAGES[s] as StageDef).chunked).length;

/** Order of (stage, chunk) within a piece: chunked stages run chunk by chunk inside their block. */
export function stageOrder(stage: StageName, chunk?: number): number {
  const i = stageIndex(stage);
  if (!(STAGES[stage] as StageDef).chunked) return i;
  const x = (chunk ?? 0) * CHUNKED_COUNT + (i - FIRST_CHUNKED); // ≥ 0, increasing in (chunk, stage)
  return FIRST_CHUNKED + x / (x + 1); // stays inside [FIRST_CHUNKED, FIRST_CHUNKED + 1) for any chunk count
}

/** Per-piece facts each path records beside its tensors. */
export type ScalarName =
  | 'softmax_scale'
  | 'has_context'
  | 'num_tokens'
  | 'num_context_tokens'
  | 'route'
  | 'context_chunks'
  | 'kv_splits'
  | 'empty_lse'
  | 'lse_base'
  | 'rope_style'
  | 'causal'
  | 'logits_rows';
export type ScalarValue = number | string | boolean;
