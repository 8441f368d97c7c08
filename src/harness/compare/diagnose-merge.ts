/** Diagnosis signatures of the attention-state merges: the split-KV combine, an empty context chunk, the merge's inputs, context only. */
import type { StageName } from '../../trace/stages';
import type { Signature } from './diagnose-detail';

export const splitMergeSig: Signature = (f) => {
  if (f.culprit !== 'mqa' || f.first.stage !== 'lse' || !((f.scalar('mqa', 'kv_splits') as number) > 1)) return null;
  if (f.verdict('split_lse')?.verdict !== 'ok') return null;
  return {
    cause: 'split-merge',
    summary: 'the split-KV combine: every split LSE agrees, their merge does not',
    evidence: `split_lse ok, lse ${f.first.verdict} in mqa with ${f.scalar('mqa', 'kv_splits')} splits`,
    matches: 'split-merge-base-2',
  };
};

export const emptyContextSig: Signature = (f) => {
  if (f.culprit !== 'mha' || !['context_output', 'context_lse'].includes(f.first.stage) || f.scalar('mha', 'empty_lse') !== '+inf')
    return null;
  if (f.first.verdict !== 'nan-introduced') return null;
  return {
    cause: 'empty-context-lse',
    summary: "an empty context chunk's +inf LSE (FA2) merged as is instead of as −inf",
    evidence: `empty_lse +inf; NaN first in ${f.first.stage}[chunk ${f.first.chunk}]`,
    matches: 'merge-inf-unhandled',
  };
};

export const mergeInputsSig: Signature = (f) => {
  if (f.culprit !== 'mha' || !['context_output', 'context_lse'].includes(f.first.stage)) return null;
  const ok = (s: StageName) => f.verdict(s, f.first.chunk)?.verdict === 'ok';
  if (!ok('chunk_lse') || !ok('chunk_output')) return null;
  const lse = f.first.stage === 'context_lse';
  return {
    cause: 'merge-inputs',
    summary: `merge_attn_states reads its inputs in another layout${lse ? ' (e.g. LSE [T, N] as [N, T])' : ''}`,
    evidence: `chunk ${f.first.chunk}'s output and LSE agree, their merged ${lse ? 'LSE' : 'output'} does not`,
    ...(lse ? { matches: 'lse-layout-transposed' as const } : {}),
  };
};

export const contextOnlySig: Signature = (f) =>
  f.scalar(f.culprit ?? 'mha', 'has_context') === true && f.earlierPiecesAgree
    ? {
        cause: 'context-only',
        summary: 'only with cached context: the context merge, its LSE base or sign, or a layout',
        evidence: `every earlier piece agrees; step ${f.first.step} (${f.first.request}) has context`,
      }
    : null;
