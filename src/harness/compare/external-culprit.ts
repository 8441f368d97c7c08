import type { Culprit, PairVerdict } from '../../trace';

/** A pair with the external path on one side. */
export const isExt = (p: PairVerdict) => p.a === 'external' || p.b === 'external';

/**
 * 'external' when the external path is the one that departs: it disagrees with the reference while
 * every engine path agrees with it; without a reference, it disagrees with every path it meets while
 * those agree with each other. Null otherwise (the engine paths are judged among themselves).
 */
export function externalCulprit(pairs: PairVerdict[]): Culprit | null {
  const ext = pairs.filter(isExt);
  if (!ext.some((p) => p.verdict !== 'ok')) return null;
  const engines = pairs.filter((p) => !isExt(p));
  const vsRef = ext.find((p) => p.a === 'reference' || p.b === 'reference');
  if (vsRef)
    return vsRef.verdict !== 'ok' && engines.filter((p) => p.b === 'reference').every((p) => p.verdict === 'ok') ? 'external' : null;
  return engines.length > 0 && ext.every((p) => p.verdict !== 'ok') && engines.every((p) => p.verdict === 'ok') ? 'external' : null;
}
