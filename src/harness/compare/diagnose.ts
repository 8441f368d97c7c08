import type { MlaConfig } from '../../core/model/config';
import type { CaseComparison, CaseDetail, CaseTrace, Diagnosis } from '../../trace';
import { facts, fmt, near } from './diagnose-facts';
import type { Signature } from './diagnose-detail';
import { narrowStorageSig, rangeSig } from './diagnose-precision';
import { flatSoftmaxSig, headSubsetSig, normRatioSig, positionZeroSig, swappedWeightsSig, unpaddedMergeSig } from './diagnose-detail';
import { contextOnlySig, emptyContextSig, mergeInputsSig, splitMergeSig } from './diagnose-merge';
import { lseBaseSig, ropeSig, softmaxScaleSig } from './diagnose-scalars';
import { ENGINE_SIGNATURES } from './diagnose-engine';

/**
 * Diagnosis: known causes checked against the first divergence, each with the evidence that
 * matched (recorded scalars, norm ratios equal to a known constant, which neighbouring records
 * agree). Pure: a trace, its comparison and the config in; ranked likely causes out.
 */
/** The diagnosis's types are the trace contract's: src/trace/comparison.ts (Diagnosis), src/trace/names.ts (CauseName). */
export type { CauseName, Diagnosis } from '../../trace';

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
  return [...SIGNATURES, ...ENGINE_SIGNATURES].map((s) => s(f, config, trace)).filter((d): d is Diagnosis => d !== null);
}
