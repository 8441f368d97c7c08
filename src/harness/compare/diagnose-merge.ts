/**
 * Diagnosis signatures of the attention-state merges: the split-KV combine, an empty context chunk, the merge's inputs (and
 * V-padded outputs read unpadded), context only. For our MHA (MQA for the split combine) path and for a third party: its
 * merge inputs count as agreeing only where it recorded them (Facts.agrees); the schedule's scalars (has_context, kv_splits,
 * empty_lse) are its own where it reported them, else the value our paths agree on (the schedule is the same).
 */
import { qkHeadDim } from '../../core/model/config';
import type { StageName } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import { culpritName } from './diagnose-facts';

const merges = (f: { culprit: string | null }) => f.culprit === 'mha' || f.culprit === 'external';

export const splitMergeSig: Signature = (f, _c, t) => {
  // A third party that did not report kv_splits: its split LSEs' last axis ([T, N, splits]).
  const splits = f.scheduleScalar('kv_splits') ?? (f.culprit ? f.stats(f.culprit, 'split_lse')?.shape[2] : undefined);
  if ((f.culprit !== 'mqa' && f.culprit !== 'external') || f.first.stage !== 'lse' || !(typeof splits === 'number' && splits > 1))
    return null;
  if (!f.agrees('split_lse')) return null;
  return {
    cause: 'split-merge',
    summary: 'the split-KV combine: every split LSE agrees, their merge does not',
    evidence: `split_lse ok, lse ${f.first.verdict} in ${culpritName(f, t)} with ${splits} splits`,
    matches: 'split-merge-base-2',
  };
};

export const emptyContextSig: Signature = (f) => {
  if (!merges(f) || !['context_output', 'context_lse'].includes(f.first.stage) || f.first.verdict !== 'nan-introduced') return null;
  const own = f.scalar(f.culprit!, 'empty_lse');
  // A third party that did not say: an empty chunk's infinite LSE that agrees with the reference's, merged into NaN (only
  // +inf does that: exp(+inf − +inf)); −inf merges cleanly.
  const empty = Array.from({ length: (f.first.chunk ?? 0) + 1 }, (_, i) => i).find(
    (i) => (f.stats(f.culprit!, 'chunk_lse', i)?.infCount ?? 0) > 0 && f.agrees('chunk_lse', i),
  );
  if (own === undefined ? f.culprit !== 'external' || empty === undefined : own !== '+inf') return null;
  return {
    cause: 'empty-context-lse',
    summary: "an empty context chunk's +inf LSE (FA2) merged as is instead of as −inf",
    evidence:
      (own === '+inf' ? 'empty_lse +inf' : `chunk_lse[${empty}] infinite as the reference's, merged into NaN`) +
      `; NaN first in ${f.first.stage}[chunk ${f.first.chunk}]`,
    matches: 'merge-inf-unhandled',
  };
};

export const mergeInputsSig: Signature = (f) => {
  if (!merges(f) || !['context_output', 'context_lse'].includes(f.first.stage)) return null;
  if (!f.agrees('chunk_lse', f.first.chunk) || !f.agrees('chunk_output', f.first.chunk)) return null;
  const lse = f.first.stage === 'context_lse';
  return {
    cause: 'merge-inputs',
    summary: `merge_attn_states reads its inputs in another layout${lse ? ' (e.g. LSE [T, N] as [N, T])' : ''}`,
    evidence: `chunk ${f.first.chunk}'s output and LSE agree, their merged ${lse ? 'LSE' : 'output'} does not`,
    ...(lse ? { matches: 'lse-layout-transposed' as const } : {}),
  };
};

export const contextOnlySig: Signature = (f) =>
  (f.culprit ? f.scheduleScalar('has_context') : f.scalar('mha', 'has_context')) === true && f.earlierPiecesAgree
    ? {
        cause: 'context-only',
        summary: 'only with cached context: the context merge, its LSE base or sign, or a layout',
        evidence: `every earlier piece agrees; step ${f.first.step} (${f.first.request}) has context`,
      }
    : null;

/** With context, every merge input and the LSE agree, the merged values do not, and V < D: the V-padded outputs read unpadded. */
export const unpaddedMergeSig: Signature = (f, c) => {
  if (!merges(f) || !['attn_out_heads', 'context_output'].includes(f.first.stage) || f.scheduleScalar('has_context') !== true) return null;
  if (c.v_head_dim >= qkHeadDim(c)) return null;
  const inputs = (['suffix_output', 'chunk_output', 'chunk_lse', 'suffix_lse'] as StageName[]).flatMap((s) =>
    Array.from({ length: 1 + (f.first.chunk ?? 8) }, (_, i) => f.verdict(s, s.startsWith('chunk') ? i : undefined)),
  );
  const lseOk = f.first.stage === 'context_output' ? f.agrees('context_lse', f.first.chunk) : f.agrees('lse');
  if (!lseOk || inputs.some((v) => v && !f.agrees(v.stage, v.chunk))) return null;
  return {
    cause: 'merge-inputs',
    summary:
      `merge_attn_states reads the attention outputs as dense [T,N,${c.v_head_dim}] ` +
      `while they are views of the [T,N,${qkHeadDim(c)}] V-padded buffer: unpadded before the merge`,
    evidence:
      `the outputs and LSEs merged agree, the merged LSE agrees, the merged values do not (${f.first.stage}); ` +
      `v_head_dim ${c.v_head_dim} < qk_head_dim ${qkHeadDim(c)}`,
    matches: 'v-unpadded-before-merge',
  };
};
