/**
 * The stage ontology: every named intermediate of both MLA paths (mla-math.md §6), its canonical
 * layout, which paths produce it and how the paths are compared there.
 *
 * Layouts are axis names separated by spaces. A path may tap a stage in its own layout (the MQA
 * LSE is [T, N] as Triton MLA returns it, the MHA LSE [N, T] as FlashAttention does); comparison
 * first permutes every side to the canonical layout. Axes: t query token, s key position,
 * h head, d hidden, q q_lora, c latent row (L+R), l kv_lora, r rope, p nope, e qk head dim (P+R),
 * v v head dim, pv per-head kv_b output (P+V), hv flattened heads·v.
 */
export type PathName = 'mha' | 'mqa' | 'reference';
export const PATH_NAMES: readonly PathName[] = ['mha', 'mqa', 'reference'];

/**
 * How mha and mqa meet at a stage: `elementwise` same layout; `up-to-layout` after permuting to
 * the canonical layout; `one-sided` only one engine path has it (checked against the reference);
 * `derived` the MQA side is a probe-only product of its absorbed weights (k_nope ≡ kv_c_normed·W_UK_T[h]ᵀ).
 */
export type Comparison = 'elementwise' | 'up-to-layout' | 'one-sided' | 'derived';
export type StageGroup = 'pre-attention' | 'weights' | 'mha' | 'mqa' | 'attention' | 'post';
export type StageKind = 'activation' | 'weight';

export interface StageDef {
  layout: string;
  shape: string;
  group: StageGroup;
  kind: StageKind;
  paths: readonly PathName[];
  compare: Comparison;
  doc: string;
}

const ALL: readonly PathName[] = ['mha', 'mqa', 'reference'];
const MHA: readonly PathName[] = ['mha', 'reference'];
const MQA: readonly PathName[] = ['mqa', 'reference'];
const pre = (layout: string, shape: string, doc: string): StageDef =>
  ({ layout, shape, group: 'pre-attention', kind: 'activation', paths: ALL, compare: 'elementwise', doc });

/** In pipeline order: the first divergent stage is the first in this order. */
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
  kv_cache: pre('s c', '[S,L+R]', 'latent cache rows [kv_c_normed | k_pe], written before attention'),
  W_UK_T: { layout: 'h p l', shape: '[N,P,L]', group: 'weights', kind: 'weight', paths: MQA, compare: 'one-sided',
    doc: 'kv_b_proj.weight.T.view(L, N, P+V)[..., :P].permute(1, 2, 0) (process_weights_after_loading)' },
  W_UV: { layout: 'h l v', shape: '[N,L,V]', group: 'weights', kind: 'weight', paths: MQA, compare: 'one-sided',
    doc: 'kv_b_proj.weight.T.view(L, N, P+V)[..., P:].transpose(0, 1)' },
  kv_nope: { layout: 't h pv', shape: '[T,N,P+V]', group: 'mha', kind: 'activation', paths: MHA, compare: 'one-sided',
    doc: 'kv_b_proj(kv_c_normed).view(T, N, P+V)' },
  k_nope: { layout: 't h p', shape: '[T,N,P]', group: 'mha', kind: 'activation', paths: ALL, compare: 'derived',
    doc: 'kv_nope[..., :P]; MQA side: kv_c_normed·W_UK_T[h]ᵀ (probe-only)' },
  v: { layout: 't h v', shape: '[T,N,V]', group: 'mha', kind: 'activation', paths: ALL, compare: 'derived',
    doc: 'kv_nope[..., P:]; MQA side: kv_c_normed·W_UV[h] (probe-only)' },
  k: { layout: 't h e', shape: '[T,N,D]', group: 'mha', kind: 'activation', paths: MHA, compare: 'one-sided',
    doc: 'cat(k_nope, k_pe broadcast over heads)' },
  ql_nope: { layout: 't h l', shape: '[T,N,L]', group: 'mqa', kind: 'activation', paths: MQA, compare: 'one-sided',
    doc: 'bmm(q_nopeᵀ, W_UK_T)ᵀ: W_UK absorbed into the query' },
  mqa_q: { layout: 't h c', shape: '[T,N,L+R]', group: 'mqa', kind: 'activation', paths: MQA, compare: 'one-sided',
    doc: 'cat(ql_nope, q_pe): the 576-wide MQA query' },
  logits: { layout: 'h t s', shape: '[N,T,S]', group: 'attention', kind: 'activation', paths: ALL, compare: 'up-to-layout',
    doc: 'softmax_scale·q·kᵀ before the causal mask (probe-only)' },
  attn_probs: { layout: 'h t s', shape: '[N,T,S]', group: 'attention', kind: 'activation', paths: ALL, compare: 'up-to-layout',
    doc: 'causal softmax of the logits (probe-only)' },
  lse: { layout: 'h t', shape: '[N,T]', group: 'attention', kind: 'activation', paths: ALL, compare: 'up-to-layout',
    doc: 'log-sum-exp of the masked logits, natural log' },
  attn_out_latent: { layout: 't h l', shape: '[T,N,L]', group: 'mqa', kind: 'activation', paths: MQA, compare: 'one-sided',
    doc: 'Σ_s p·kv_c_normed[s]: attention output in latent space' },
  attn_out_heads: { layout: 't h v', shape: '[T,N,V]', group: 'attention', kind: 'activation', paths: ALL, compare: 'elementwise',
    doc: 'per-head attention output (MQA: attn_out_latent·W_UV[h])' },
  attn_out: { layout: 't hv', shape: '[T,N·V]', group: 'post', kind: 'activation', paths: ALL, compare: 'elementwise',
    doc: 'heads flattened: the mla_attn output' },
  o_proj_out: { layout: 't d', shape: '[T,H]', group: 'post', kind: 'activation', paths: ALL, compare: 'elementwise',
    doc: 'o_proj(attn_out) (a partial sum under tensor parallelism)' },
} as const satisfies Record<string, StageDef>;

export type StageName = keyof typeof STAGES;
export const STAGE_NAMES = Object.keys(STAGES) as StageName[];

export function isStageName(s: string): s is StageName {
  return Object.prototype.hasOwnProperty.call(STAGES, s);
}

export function stageIndex(s: StageName): number {
  return STAGE_NAMES.indexOf(s);
}

/** Per-step facts each path records beside its tensors. */
export type ScalarName =
  | 'softmax_scale' | 'has_context' | 'num_tokens' | 'num_context_tokens' | 'num_mha_tokens'
  | 'num_mqa_tokens' | 'lse_base' | 'rope_style' | 'causal' | 'head_start' | 'head_count';
export type ScalarValue = number | string | boolean;
