import type { DevicePath, StageName } from '../../trace/stages';

/**
 * The static stage dataflow of each device path: for every stage a path records, the stages it
 * is computed from IN THAT PATH (through the values their taps return, so that a stage replay can
 * substitute them; weights and embeddings are not stages). Pure data, read by the stage replay.
 *
 * An input names a stage of the same piece; chunked inputs name a chunk relative to the record's
 * (`same`, `prev`: the running merge before it, `last`: the final merge of the piece). Inputs a
 * path did not record in that piece (the MQA split LSEs without KV splits, the MHA context merges
 * without context) are skipped. `history` names stages whose values of EARLIER pieces of the same
 * request feed the record too (through the paged latent cache, or cold's per-request K/V).
 */
export type ChunkRef = 'same' | 'prev' | 'last';
export interface StageInput {
  stage: StageName;
  chunk?: ChunkRef;
}
export interface StageFlow {
  inputs: readonly StageInput[];
  history?: readonly StageName[];
}
export type Dataflow = Partial<Record<StageName, StageFlow>>;

const of = (...stages: (StageName | [StageName, ChunkRef])[]): StageInput[] =>
  stages.map((s) => (typeof s === 'string' ? { stage: s } : { stage: s[0], chunk: s[1] }));
const flow = (inputs: StageInput[], history?: StageName[]): StageFlow => (history ? { inputs, history } : { inputs });
const LATENT_ROWS: StageName[] = ['kv_c_normed', 'k_pe'];

/** pre-attention.ts preAttention, the same in every path. */
const PRE: Dataflow = {
  hidden_in: flow([]),
  q_c_raw: flow(of('hidden_in')),
  kv_lora: flow(of('hidden_in')),
  q_c: flow(of('q_c_raw')),
  q_full_prerope: flow(of('q_c')),
  q_nope: flow(of('q_full_prerope')),
  q_pe_raw: flow(of('q_full_prerope')),
  kv_c: flow(of('kv_lora')),
  k_pe_raw: flow(of('kv_lora')),
  kv_c_normed: flow(of('kv_c')),
  q_pe: flow(of('q_pe_raw')),
  k_pe: flow(of('k_pe_raw')),
  q: flow(of('q_nope', 'q_pe')),
  kv_cache: flow(of('kv_c_normed', 'k_pe'), LATENT_ROWS),
};

/** Up-projected K/V of the step's tokens (mha.ts, cold.ts). */
const EXPANDED: Dataflow = {
  kv_nope: flow(of('kv_c_normed')),
  k_nope: flow(of('kv_nope')),
  v: flow(of('kv_nope')),
  k: flow(of('k_nope', 'k_pe')),
};

const TAIL: Dataflow = { attn_out: flow(of('attn_out_heads')), o_proj_out: flow(of('attn_out')) };

/** The merged context of a piece with context: the last running merge and the step's own tokens. */
const FINAL_MERGE: StageInput[] = of(['context_output', 'last'], ['context_lse', 'last'], 'suffix_output', 'suffix_lse');

export const DATAFLOW: Readonly<Record<DevicePath, Dataflow>> = {
  mha: {
    ...PRE,
    ...EXPANDED,
    logits: flow(of('q_nope', 'q_pe', 'k')),
    attn_probs: flow(of('logits')),
    suffix_output: flow(of('q_nope', 'q_pe', 'k', 'v')),
    suffix_lse: flow(of('q_nope', 'q_pe', 'k')),
    ctx_workspace: flow([], LATENT_ROWS),
    chunk_output: flow(of('q_nope', 'q_pe', ['ctx_workspace', 'same'])),
    chunk_lse: flow(of('q_nope', 'q_pe', ['ctx_workspace', 'same'])),
    context_output: flow(of(['chunk_output', 'same'], ['chunk_lse', 'same'], ['context_output', 'prev'], ['context_lse', 'prev'])),
    context_lse: flow(of(['chunk_lse', 'same'], ['context_lse', 'prev'])),
    // Without context: the logits (and V); with context: the final merge.
    lse: flow(of('logits', ['context_lse', 'last'], 'suffix_lse')),
    attn_out_heads: flow([...of('logits', 'v'), ...FINAL_MERGE]),
    ...TAIL,
  },
  mqa: {
    ...PRE,
    kv_cache: flow(of('kv_c_normed', 'k_pe'), LATENT_ROWS),
    W_UK_T: flow([]),
    W_UV: flow([]),
    k_nope: flow(of('kv_c_normed', 'W_UK_T')),
    v: flow(of('kv_c_normed', 'W_UV')),
    ql_nope: flow(of('q_nope', 'W_UK_T')),
    mqa_q: flow(of('ql_nope', 'q_pe')),
    logits: flow(of('mqa_q', 'kv_cache')),
    attn_probs: flow(of('logits')),
    split_lse: flow(of('logits')),
    // With KV splits the merge reads the split LSEs; without, the logits alone.
    lse: flow(of('logits', 'split_lse')),
    attn_out_latent: flow(of('logits', 'kv_cache', 'split_lse')),
    attn_out_heads: flow(of('attn_out_latent', 'W_UV')),
    ...TAIL,
  },
  cold: {
    ...PRE,
    ...EXPANDED,
    logits: flow(of('q_nope', 'q_pe', 'k'), ['k']),
    attn_probs: flow(of('logits')),
    lse: flow(of('logits')),
    attn_out_heads: flow(of('logits', 'v'), ['v']),
    ...TAIL,
  },
};
