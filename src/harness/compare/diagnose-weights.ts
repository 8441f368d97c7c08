/**
 * Diagnosis signatures of the absorbed weights W_UK_T and W_UV: the right values in other places (a reshape where a
 * permute was due), or each holding the other's block. Our MQA path records them; a third party that reports its own
 * rearranged weights (stages W_UK_T, W_UV) is read the same way.
 */
import type { StageName } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import { culpritName, fmt, near } from './diagnose-facts';

export const absorbedSig: Signature = (f) => {
  if (!f.culprit || (f.first.stage !== 'W_UK_T' && f.first.stage !== 'W_UV') || !f.witness) return null;
  const a = f.stats(f.culprit, f.first.stage)?.l2;
  const b = f.stats(f.witness, f.first.stage)?.l2;
  if (a === undefined || b === undefined || !near(a, b, 1e-5)) return null;
  return {
    cause: 'absorbed-weights',
    summary: `${f.first.stage} holds kv_b_proj's values in other places: a reshape where a permute/transpose was due`,
    evidence: `‖${f.first.stage}‖ equal to ${f.witness}'s (${fmt(a)}), elements differ (rel ${fmt(f.first.relErr ?? NaN)})`,
    ...(f.first.stage === 'W_UK_T' ? { matches: 'w-uk-wrong-axis' as const } : {}),
  };
};

/** W_UK_T carries the norm of the witness's W_UV and W_UV that of its W_UK_T. */
export const swappedWeightsSig: Signature = (f, _c, t) => {
  const p = f.culprit;
  if ((p !== 'mqa' && p !== 'external') || f.first.stage !== 'W_UK_T' || !f.witness) return null;
  const n = (path: typeof p | typeof f.witness, s: StageName) => f.stats(path, s)?.l2;
  const [uk, uv, wk, wv] = [n(p, 'W_UK_T'), n(p, 'W_UV'), n(f.witness, 'W_UK_T'), n(f.witness, 'W_UV')];
  if (
    uk === undefined ||
    uv === undefined ||
    wk === undefined ||
    wv === undefined ||
    near(wk, wv, 1e-4) ||
    !near(uk, wv, 1e-5) ||
    !near(uv, wk, 1e-5)
  )
    return null;
  const who = culpritName(f, t);
  return {
    cause: 'absorbed-weights',
    summary: "W_UK and W_UV swapped: each absorbed weight holds the other's block",
    evidence: `‖W_UK_T‖ ${who} ${fmt(uk)} = ‖W_UV‖ ${f.witness}; ‖W_UV‖ ${who} ${fmt(uv)} = ‖W_UK_T‖ ${f.witness} (${fmt(wk)})`,
    matches: 'w-uk-uv-swapped',
  };
};
