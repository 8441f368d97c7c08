import type { FaultName } from '../../core/faults/catalogue';
import { K_SCALE } from '../../core/faults/catalogue';
import type { MlaConfig } from '../../core/model/config';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../../core/model/config';
import { ropeMscale } from '../../core/model/rope';
import type { StageName } from '../../trace/stages';
import type { CaseComparison, CaseDetail, CaseTrace, Diagnosis } from '../../trace';
import { facts, fmt, near } from './diagnose-facts';
import type { Signature } from './diagnose-detail';
import { narrowStorageSig, rangeSig } from './diagnose-precision';
import { flatSoftmaxSig, headSubsetSig, normRatioSig, positionZeroSig, swappedWeightsSig, unpaddedMergeSig } from './diagnose-detail';

/**
 * Diagnosis: known causes checked against the first divergence, each with the evidence that
 * matched (recorded scalars, norm ratios equal to a known constant, which neighbouring records
 * agree). Pure: a trace, its comparison and the config in; ranked likely causes out.
 */
/** The diagnosis's types are the trace contract's: src/trace/comparison.ts (Diagnosis), src/trace/names.ts (CauseName). */
export type { CauseName, Diagnosis } from '../../trace';

const LSE_STAGES: readonly StageName[] = ['lse', 'suffix_lse', 'chunk_lse', 'split_lse', 'context_lse'];

/** The softmax scale a path recorded, against the config's, matched to the constants of known bugs. */
const softmaxScaleSig: Signature = (f, c) => {
  if (!f.culprit) return null;
  const got = f.scalar(f.culprit, 'softmax_scale');
  const want = softmaxScale(c);
  if (typeof got !== 'number' || near(got, want, 1e-9)) return null;
  const y = c.rope_scaling;
  const known: [number, string, FaultName][] = [
    [
      latentWidth(c) ** -0.5,
      `(L+R)^-0.5 = ${latentWidth(c)}^-0.5: the scale taken from the latent query width instead of qk_head_dim ${qkHeadDim(c)}`,
      'softmax-scale-latent',
    ],
    [want * K_SCALE, `× ${K_SCALE}: a checkpoint k_scale multiplied in (the cache is not fp8)`, 'k-scale-bf16-cache'],
    ...(y
      ? ([
          [
            qkHeadDim(c) ** -0.5,
            `qk_head_dim^-0.5 without YaRN's mscale² (${fmt(yarnGetMscale(y.factor, y.mscale_all_dim) ** 2)})`,
            'yarn-mscale-missing',
          ],
          [
            qkHeadDim(c) ** -0.5 * yarnGetMscale(y.factor, y.mscale_all_dim / 10) ** 2,
            'mscale with a 10× smaller log term: yarn_log_multiplier (0.1·mscale_all_dim) read as mscale_all_dim',
            'yarn-log-mul-misread',
          ],
        ] as [number, string, FaultName][])
      : []),
  ];
  const hit = known.find(([v]) => near(got, v, 1e-6));
  const evidence = `softmax_scale ${f.culprit} ${fmt(got)}, config ${fmt(want)} (×${fmt(got / want)})`;
  return hit
    ? { cause: 'softmax-scale', summary: `softmax scale ${hit[1]}`, evidence, matches: hit[2] }
    : { cause: 'softmax-scale', summary: "the softmax scale differs from the config's", evidence };
};

const lseBaseSig: Signature = (f) => {
  if (!f.culprit || !LSE_STAGES.includes(f.first.stage)) return null;
  if (f.scalar(f.culprit, 'lse_base') === 2) {
    return {
      cause: 'lse-base',
      summary: 'the LSE is reported in base 2 where natural log is expected',
      evidence: `lse_base 2 in ${f.culprit}; norm ratio ${fmt(f.first.normRatio ?? NaN)} (1/ln 2 = 1.443)`,
      matches: 'lse-base-2',
    };
  }
  const r = f.first.normRatio;
  if (r !== null && (near(r, 1 / Math.LN2, 2e-3) || near(r, Math.LN2, 2e-3))) {
    return { cause: 'lse-base', summary: 'an LSE in the other base (ratio ln 2)', evidence: `norm ratio ${fmt(r)} at ${f.first.stage}` };
  }
  return null;
};

const splitMergeSig: Signature = (f) => {
  if (f.culprit !== 'mqa' || f.first.stage !== 'lse' || !((f.scalar('mqa', 'kv_splits') as number) > 1)) return null;
  if (f.verdict('split_lse')?.verdict !== 'ok') return null;
  return {
    cause: 'split-merge',
    summary: 'the split-KV combine: every split LSE agrees, their merge does not',
    evidence: `split_lse ok, lse ${f.first.verdict} in mqa with ${f.scalar('mqa', 'kv_splits')} splits`,
    matches: 'split-merge-base-2',
  };
};

const ropeSig: Signature = (f, c) => {
  if (!f.culprit || (f.first.stage !== 'q_pe' && f.first.stage !== 'k_pe')) return null;
  const style = f.scalar(f.culprit, 'rope_style');
  const want = c.rope_interleave ? 'gptj' : 'neox';
  if (style !== undefined && style !== want) {
    return {
      cause: 'rope-convention',
      summary: `RoPE pairs rotated ${style === 'neox' ? 'as NeoX split halves' : 'as GPT-J interleaved pairs'}, the config says ${want}`,
      evidence:
        `rope_style ${style} in ${f.culprit}; norms equal (ratio ${fmt(f.first.normRatio ?? NaN)}): ` +
        'the pairs are permuted, not scaled',
      matches: 'rope-neox',
    };
  }
  const a = f.stats(f.culprit, f.first.stage)?.l2;
  const b = f.witness ? f.stats(f.witness, f.first.stage)?.l2 : undefined;
  if (a === undefined || b === undefined || near(a, b, 1e-5)) return null;
  const y = c.rope_scaling;
  const inflated = y ? yarnGetMscale(y.factor, y.mscale_all_dim) / ropeMscale(c) : NaN;
  return near(a / b, inflated, 1e-4)
    ? {
        cause: 'rope-magnitude',
        summary: 'RoPE cos/sin scaled by get_mscale(factor, mscale_all_dim) instead of the mscale ratio',
        evidence: `‖${f.first.stage}‖ ×${fmt(a / b)} against ${f.witness} = ${fmt(inflated)}`,
        matches: 'rope-mscale-inflated',
      }
    : {
        cause: 'rope-magnitude',
        summary: 'RoPE cos/sin carry a different magnitude (mscale)',
        evidence: `‖${f.first.stage}‖ ×${fmt(a / b)} against ${f.witness}`,
      };
};

const normSkippedSig: Signature = (f) => {
  if (!f.culprit || f.first.stage !== 'kv_c_normed') return null;
  const normed = f.stats(f.culprit, 'kv_c_normed')?.l2;
  const raw = f.stats(f.culprit, 'kv_c')?.l2;
  if (normed === undefined || raw === undefined || !near(normed, raw, 1e-6)) return null;
  return {
    cause: 'norm-skipped',
    summary: 'kv_a_layernorm not applied before the latent is cached',
    evidence: `‖kv_c_normed‖ = ‖kv_c‖ = ${fmt(raw)} in ${f.culprit}`,
    matches: 'kv-norm-skipped',
  };
};

const absorbedSig: Signature = (f) => {
  if (!f.culprit || (f.first.stage !== 'W_UK_T' && f.first.stage !== 'W_UV') || !f.witness) return null;
  const a = f.stats(f.culprit, f.first.stage)?.l2;
  const b = f.stats(f.witness, f.first.stage)?.l2;
  if (a === undefined || b === undefined || !near(a, b, 1e-5)) return null;
  return {
    cause: 'absorbed-weights',
    summary: `${f.first.stage} holds kv_b_proj's values in other places: a reshape where a permute/transpose was due`,
    evidence: `‖${f.first.stage}‖ equal to ${f.witness}'s (${fmt(a)}), elements differ (rel ${fmt(f.first.relErr ?? NaN)})`,
    matches: 'w-uk-wrong-axis',
  };
};

const emptyContextSig: Signature = (f) => {
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

const mergeInputsSig: Signature = (f) => {
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

const contextOnlySig: Signature = (f) =>
  f.scalar(f.culprit ?? 'mha', 'has_context') === true && f.earlierPiecesAgree
    ? {
        cause: 'context-only',
        summary: 'only with cached context: the context merge, its LSE base or sign, or a layout',
        evidence: `every earlier piece agrees; step ${f.first.step} (${f.first.request}) has context`,
      }
    : null;

const nanSig: Signature = (f) =>
  f.first.verdict === 'nan-introduced'
    ? {
        cause: 'nan-origin',
        summary: `NaN/Inf first appears at ${f.first.stage}`,
        evidence: `in ${f.culprit ?? 'a path'}, step ${f.first.step}, ${f.first.request}`,
      }
    : null;

/** Most specific first: a scalar or an exact constant beats a pattern of neighbours beats a fallback. */
const SIGNATURES: readonly Signature[] = [
  rangeSig,
  narrowStorageSig,
  ropeSig,
  normSkippedSig,
  swappedWeightsSig,
  absorbedSig,
  lseBaseSig,
  splitMergeSig,
  emptyContextSig,
  unpaddedMergeSig,
  mergeInputsSig,
  softmaxScaleSig,
  normRatioSig,
  flatSoftmaxSig,
  headSubsetSig,
  positionZeroSig,
  contextOnlySig,
  nanSig,
];

/** `detail` (the run's per-token, per-head and entropy measurements) feeds the signatures that need it; without it they stay silent. */
export function diagnose(trace: CaseTrace, comparison: CaseComparison, config: MlaConfig, detail?: CaseDetail): Diagnosis[] {
  const f = facts(trace, comparison, detail);
  if (!f) return [];
  return SIGNATURES.map((s) => s(f, config, trace)).filter((d): d is Diagnosis => d !== null);
}
