import type { MlaConfig } from '../../core/model/config';
import type { CaseComparison, CaseDetail, CaseTrace, Diagnosis } from '../../trace';
import { culpritName, facts } from './diagnose-facts';
import { normRmsSig, normSkippedSig, normWeightSig } from './diagnose-norms';
import type { Signature } from './diagnose-detail';
import { narrowStorageSig, rangeSig } from './diagnose-precision';
import { causalMaskSig, flatSoftmaxSig, headSubsetSig, normRatioSig, positionZeroSig } from './diagnose-detail';
import { contextOnlySig, emptyContextSig, mergeInputsSig, splitMergeSig, unpaddedMergeSig } from './diagnose-merge';
import { lseBaseSig, lseLayoutSig, lseSignSig } from './diagnose-lse';
import { ropeRotationSig, ropeSig, softmaxScaleSig } from './diagnose-scalars';
import { absorbedSig, swappedWeightsSig } from './diagnose-weights';
import { ENGINE_FALLBACKS, ENGINE_SIGNATURES } from './diagnose-engine';

/**
 * Diagnosis: known causes checked against the first divergence, each with the evidence that
 * matched (recorded scalars, norm ratios equal to a known constant, which neighbouring records
 * agree). Pure: a trace, its comparison and the config in; ranked likely causes out.
 *
 * Every signature runs for our paths and for a third party (culprit `external`: a backend, a trace import, an engine),
 * reading the third party's own records and scalars where it has them. The few that name one path's internals say so:
 * swappedWeightsSig and the split combine read the absorbed path's records (ours: mqa), the merge signatures the
 * expanded path's (ours: mha); a third party is held to the same records wherever it recorded them.
 */
/** The diagnosis's types are the trace contract's: src/trace/comparison.ts (Diagnosis), src/trace/names.ts (CauseName). */
export type { CauseName, Diagnosis } from '../../trace';

const nanSig: Signature = (f, _c, t) =>
  f.first.verdict === 'nan-introduced'
    ? {
        cause: 'nan-origin',
        summary: `NaN/Inf first appears at ${f.first.stage}`,
        evidence: `in ${culpritName(f, t)}, step ${f.first.step}, ${f.first.request}`,
      }
    : null;

/** Most specific first: a scalar or an exact constant beats a pattern of neighbours beats a fallback. */
const SIGNATURES: readonly Signature[] = [
  rangeSig,
  narrowStorageSig,
  ropeSig,
  normSkippedSig,
  normRmsSig,
  swappedWeightsSig,
  absorbedSig,
  lseBaseSig,
  splitMergeSig,
  emptyContextSig,
  unpaddedMergeSig,
  mergeInputsSig,
  lseLayoutSig,
  lseSignSig,
  softmaxScaleSig,
  normRatioSig,
  causalMaskSig,
  flatSoftmaxSig,
  headSubsetSig,
  positionZeroSig,
  ropeRotationSig,
  normWeightSig,
  contextOnlySig,
  nanSig,
];

/**
 * `detail` (the run's per-token, per-head and entropy measurements) feeds the signatures that need it; without it they stay silent.
 * For a third party the engine signatures (its op parameters, its norm weights) come first, a general signature of a cause
 * they already named is left out, and the product fallback (its weight differs: diagnose-engine.ts) comes last.
 */
export function diagnose(trace: CaseTrace, comparison: CaseComparison, config: MlaConfig, detail?: CaseDetail): Diagnosis[] {
  const f = facts(trace, comparison, detail);
  if (!f) return [];
  const run = (sigs: readonly Signature[]) => sigs.map((s) => s(f, config, trace)).filter((d): d is Diagnosis => d !== null);
  if (f.culprit !== 'external') return run(SIGNATURES);
  const engine = run(ENGINE_SIGNATURES);
  return [...engine, ...run(SIGNATURES).filter((d) => !engine.some((e) => e.cause === d.cause)), ...run(ENGINE_FALLBACKS)];
}
