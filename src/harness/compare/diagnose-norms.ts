/**
 * Diagnosis signatures of the RMSNorm records (hidden_in, q_c, kv_c_normed): the norm skipped (‖kv_c_normed‖ = ‖kv_c‖), each
 * row off by a factor of its own (another RMS divisor: the detail's row-scaled error), or rows off otherwise while the
 * norm's input agrees (its weight). Our paths and a third party alike (an engine's all-ones weight: diagnose-engine.ts).
 */
import type { StageName } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import { culpritName, fmt, near } from './diagnose-facts';

/** Each normalized record, its input (none for hidden_in: the embeddings we hand over) and its weight. */
const NORMED: Partial<Record<StageName, [StageName | null, string]>> = {
  hidden_in: [null, 'input_layernorm'],
  q_c: ['q_c_raw', 'q_a_layernorm'],
  kv_c_normed: ['kv_c', 'kv_a_layernorm'],
};

export const normSkippedSig: Signature = (f, _c, t) => {
  if (!f.culprit || f.first.stage !== 'kv_c_normed') return null;
  const normed = f.stats(f.culprit, 'kv_c_normed')?.l2;
  const raw = f.stats(f.culprit, 'kv_c')?.l2;
  if (normed === undefined || raw === undefined || !near(normed, raw, 1e-6)) return null;
  return {
    cause: 'norm-skipped',
    summary: 'kv_a_layernorm not applied before the latent is cached',
    evidence: `‖kv_c_normed‖ = ‖kv_c‖ = ${fmt(raw)} in ${culpritName(f, t)}`,
    matches: 'kv-norm-skipped',
  };
};

/** The normalized record introduced while its input agrees, with the detail's row-scaled error: divisor or weight. */
const normed = (f: Parameters<Signature>[0]) => {
  const n = NORMED[f.first.stage];
  const d = f.detail;
  if (!f.culprit || !n || d?.rowScaled === undefined || (n[0] !== null && !f.agrees(n[0]))) return null;
  const e = f.first.relErr;
  return e !== null && e > f.tolerance ? { n, rowScaled: d.rowScaled, e } : null;
};

export const normRmsSig: Signature = (f, _c, t) => {
  const x = normed(f);
  if (!x || x.rowScaled > f.tolerance) return null;
  return {
    cause: 'norm-rms',
    summary:
      `each row of ${culpritName(f, t)}'s ${f.first.stage} is off by a factor of its own: ${x.n[1]} divides by another RMS ` +
      '(over another width, e.g. the whole L+R row with k_pe, or with another eps)',
    evidence: `${f.first.stage}: rel err ${fmt(x.e)}, ${fmt(x.rowScaled)} once each row is rescaled${x.n[0] ? `; ${x.n[0]} agrees` : ''}`,
  };
};

export const normWeightSig: Signature = (f, _c, t) => {
  const x = normed(f);
  if (!x || x.rowScaled <= f.tolerance) return null;
  const engine = f.culprit === 'external' && t.external?.kind === 'engine';
  return {
    cause: 'weight-differs',
    summary: engine
      ? `${culpritName(f, t)}'s ${f.first.stage} departs while its input agrees: the model file's norm weight differs`
      : `${culpritName(f, t)}'s ${f.first.stage} departs while its input agrees: ${x.n[1]}'s weight applied otherwise ` +
        '(twice, folded into the next projection as well, or another vector)',
    evidence:
      `${f.first.stage}: rel err ${fmt(x.e)}, still ${fmt(x.rowScaled)} with each row rescaled (not a divisor); ` +
      `norm ratio ${fmt(f.first.normRatio ?? NaN)}`,
  };
};
