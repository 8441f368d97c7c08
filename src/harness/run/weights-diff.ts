import type { WeightDiff } from '../compare/weights';
import type { WeightValues } from '../../core/weights/records';

const { sqrt, abs } = Math;

/** Index → [row, col] for a row-major shape. */
const unravel = (i: number, shape: readonly number[]): number[] => (shape.length === 2 ? [Math.floor(i / shape[1]!), i % shape[1]!] : [i]);

/** One weight of source a against the same weight of source b, in float64 over their float32 values. */
export function diffWeight(a: WeightValues, b: WeightValues): WeightDiff {
  const { name } = a.record;
  const shapeMatch = a.record.shape.length === b.record.shape.length && a.record.shape.every((d, i) => d === b.record.shape[i]);
  const nonFinite: [number, number] = [a.record.nonFinite, b.record.nonFinite];
  if (!shapeMatch) return { name, relErr: Infinity, maxAbsErr: Infinity, maxAbsErrAt: [], allowed: 0, beyond: 0, nonFinite, shapeMatch };
  const x = a.values;
  const y = b.values;
  const ba = a.bound;
  const bb = b.bound;
  let dd = 0;
  let yy = 0;
  let mx = 0;
  let at = 0;
  let beyond = 0;
  for (let i = 0; i < x.length; i++) {
    const d = x[i]! - y[i]!;
    if (d !== d) continue; // NaN: counted in nonFinite
    dd += d * d;
    yy += y[i]! * y[i]!;
    const ad = abs(d);
    if (ad > mx) {
      mx = ad;
      at = i;
    }
    const lim = (ba ? ba[i]! : 0) + (bb ? bb[i]! : 0);
    if (ad > lim * (1 + 1e-6) + 1e-30) beyond++;
  }
  const ny = sqrt(yy);
  const allowed = ny > 0 ? (a.record.boundNorm + b.record.boundNorm) / ny : 0;
  return {
    name,
    relErr: ny > 0 ? sqrt(dd) / ny : sqrt(dd) > 0 ? Infinity : 0,
    maxAbsErr: mx,
    maxAbsErrAt: unravel(at, a.record.shape),
    allowed,
    beyond,
    nonFinite,
    shapeMatch,
  };
}

/** Every weight of the W stage, a against b, by name. */
export function diffWeights(a: readonly WeightValues[], b: readonly WeightValues[]): WeightDiff[] {
  const byName = new Map(b.map((w) => [w.record.name, w]));
  return a.flatMap((w) => {
    const o = byName.get(w.record.name);
    return o ? [diffWeight(w, o)] : [];
  });
}
