/** Who is wrong at a divergent record: the culprit rule over a record's pair verdicts, invariant checks and NaN counts. */
import { isInvariant } from '../../core/probes/probe';
import type { PathName } from '../../trace/stages';
import type { CheckResult, Culprit, PairDiff, PairVerdict } from '../../trace';
import { externalCulprit } from './external-culprit';

const ENGINES: PathName[] = ['mha', 'mqa', 'cold'];
/** The verdict of the pair a–b (either order), if it was compared. */
export const findPair = (pairs: PairVerdict[], a: PathName, b: PathName) =>
  pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
/** The culprit naming a set of engine paths: 'both' when it holds mha and mqa, else its first. */
export const namedCulprit = (set: PathName[]): Culprit => (set.includes('mha') && set.includes('mqa') ? 'both' : (set[0] as Culprit));

/**
 * Who is wrong at a divergent record: the paths that break an invariant; else the external path
 * when it alone departs; else those that disagree with the float64 reference; else the odd one out
 * of three fp32 paths; else the side with NaN.
 */
export function culpritOf(pairs: PairVerdict[], checks: CheckResult[], diffs: PairDiff[]): Culprit {
  const violating = [...new Set(checks.filter((c) => c.violations > 0 && isInvariant(c.name)).map((c) => c.path))].filter(
    (p) => p !== 'reference',
  );
  if (violating.length) return namedCulprit(violating);
  const ext = externalCulprit(pairs);
  if (ext) return ext;
  const present = ENGINES.filter((p) => pairs.some((x) => x.a === p || x.b === p));
  const vsRef = present.map((p) => [p, findPair(pairs, p, 'reference')] as const).filter(([, v]) => v);
  if (vsRef.length) {
    const bad = vsRef.filter(([, v]) => v!.verdict !== 'ok').map(([p]) => p);
    const engines = bad.filter((p) => p !== 'cold');
    if (!bad.length) return 'unknown';
    if (engines.length === 2) return findPair(pairs, 'mha', 'mqa')?.verdict === 'ok' ? 'shared' : 'both';
    return engines.length ? (engines[0] as Culprit) : 'cold';
  }
  if (present.length === 3) {
    const odd = present.filter((p) => present.filter((q) => q !== p).every((q) => findPair(pairs, p, q)?.verdict !== 'ok'));
    const rest = (p: PathName) => present.filter((q) => q !== p);
    const others = (p: PathName) => findPair(pairs, rest(p)[0]!, rest(p)[1]!)?.verdict === 'ok';
    const single = odd.filter(others);
    if (single.length === 1) return single[0] as Culprit;
  }
  const nanSides = new Set<PathName>();
  for (const d of diffs) {
    if (d.nan[0] > 0) nanSides.add(d.a);
    if (d.nan[1] > 0) nanSides.add(d.b);
  }
  nanSides.delete('reference');
  const nanEngines = ENGINES.filter((p) => nanSides.has(p));
  return nanEngines.length ? namedCulprit(nanEngines) : nanSides.has('external') ? 'external' : 'unknown';
}
