/**
 * Diagnosis signatures of a log-sum-exp record: its base (the lse_base scalar, else a norm ratio of ln 2), its layout (a
 * [T,N] buffer read as [N,T]: the per-record detail, else where the largest value sits) and its sign. For our paths and
 * for a third party alike: they read the culprit's own scalars and statistics against the witness's.
 */
import type { TensorStats } from '../../trace';
import type { StageName } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import { culpritName, fmt, near } from './diagnose-facts';

export const LSE_STAGES: readonly StageName[] = ['lse', 'suffix_lse', 'chunk_lse', 'split_lse', 'context_lse'];
/** The two-axis LSEs ([N,T]): those a transposed layout can scramble. */
const LSE_2D: readonly StageName[] = ['lse', 'suffix_lse', 'chunk_lse', 'context_lse'];

export const lseBaseSig: Signature = (f, _c, t) => {
  if (!f.culprit || !LSE_STAGES.includes(f.first.stage)) return null;
  if (f.scalar(f.culprit, 'lse_base') === 2) {
    return {
      cause: 'lse-base',
      summary: 'the LSE is reported in base 2 where natural log is expected',
      evidence: `lse_base 2 in ${culpritName(f, t)}; norm ratio ${fmt(f.first.normRatio ?? NaN)} (1/ln 2 = 1.443)`,
      matches: 'lse-base-2',
    };
  }
  const r = f.first.normRatio;
  if (r !== null && (near(r, 1 / Math.LN2, 2e-3) || near(r, Math.LN2, 2e-3))) {
    return { cause: 'lse-base', summary: 'an LSE in the other base (ratio ln 2)', evidence: `norm ratio ${fmt(r)} at ${f.first.stage}` };
  }
  return null;
};

/**
 * Where the largest |x| of `b` (a correct [N,T] LSE) lands when its buffer is read in the other axis order: [T,N] data
 * taken as [N,T], and the reverse. Each as an [h, t] index of the [N,T] shape.
 */
export function swappedMaxAt(b: Pick<TensorStats, 'shape' | 'maxAbsAt'>): [number, number][] {
  const [N, T] = b.shape as [number, number];
  const [h, t] = b.maxAbsAt as [number, number];
  const k = h * T + t;
  const unravel = (j: number): [number, number] => [Math.floor(j / T), j % T];
  return [unravel((k % N) * T + Math.floor(k / N)), unravel((k % T) * N + Math.floor(k / T))];
}

/** Same values, other places: the detail's swapped-axes error within tolerance, else the largest value moved as a transpose moves it. */
export const lseLayoutSig: Signature = (f, _c, t) => {
  if (!f.culprit || !f.witness || !LSE_2D.includes(f.first.stage)) return null;
  const e = f.first.relErr;
  if (e === null || !(e > f.tolerance)) return null;
  const who = culpritName(f, t);
  const summary = `${who}'s ${f.first.stage} holds the right values in [T, N] order where [N, T] is read (or the reverse): a layout bug`;
  const d = f.detail;
  if (d?.swapped !== undefined && d.swapped <= f.tolerance) {
    return {
      cause: 'lse-layout',
      summary,
      evidence: `${f.first.stage} ${d.a} vs ${d.b}: rel err ${fmt(e)} as read, ${fmt(d.swapped)} with its axes swapped`,
    };
  }
  const a = f.stats(f.culprit, f.first.stage, f.first.chunk);
  const b = f.stats(f.witness, f.first.stage, f.first.chunk);
  if (!a || !b || a.shape.length !== 2 || a.shape.join() !== b.shape.join() || a.shape[0]! < 2 || a.shape[1]! < 2) return null;
  if (!near(a.l2, b.l2, 1e-5) || !near(a.maxAbs, b.maxAbs, 1e-5) || a.maxAbsAt.join() === b.maxAbsAt.join()) return null;
  const moved = swappedMaxAt(b).find(([h, tt]) => a.maxAbsAt[0] === h && a.maxAbsAt[1] === tt);
  if (!moved) return null;
  return {
    cause: 'lse-layout',
    summary,
    evidence:
      `‖${f.first.stage}‖ and max |x| equal to ${f.witness}'s (${fmt(a.l2)}, ${fmt(a.maxAbs)}), elements differ (rel ${fmt(e)}); ` +
      `its max sits at [${a.maxAbsAt.join(', ')}], ${f.witness}'s at [${b.maxAbsAt.join(', ')}]: where a transposed read puts it`,
  };
};

/** The same magnitudes, the opposite sign: −LSE (a log of the reciprocal sum, or a negated max). */
export const lseSignSig: Signature = (f, _c, t) => {
  if (!f.culprit || !f.witness || !LSE_STAGES.includes(f.first.stage)) return null;
  const a = f.stats(f.culprit, f.first.stage, f.first.chunk);
  const b = f.stats(f.witness, f.first.stage, f.first.chunk);
  if (!a || !b || !Number.isFinite(a.mean) || !Number.isFinite(b.mean) || b.mean === 0) return null;
  if (!near(a.l2, b.l2, 1e-5) || !near(-a.mean, b.mean, 1e-5)) return null;
  return {
    cause: 'lse-sign',
    summary: `${culpritName(f, t)}'s ${f.first.stage} has the opposite sign: −log Σ exp (a negated LSE, or the log of a reciprocal)`,
    evidence: `mean ${fmt(a.mean)} against ${f.witness}'s ${fmt(b.mean)}, norms equal (${fmt(a.l2)})`,
  };
};
