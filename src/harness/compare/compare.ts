import { isInvariant } from '../../core/probes/probe';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { CaseComparison, CaseTrace, CheckResult, Divergence, PairDiff, PairVerdict, StageVerdict, Verdict, Where } from '../../trace';
import { noiseFloors, vsReference, withStorage } from './floors';
import { thirdPartyTerm } from './floors-engine';
import { pairBound, thirdPartyBounds } from './third-party';
import type { ToleranceSpec } from '../../trace';
import { culpritOf, findPair, namedCulprit } from './culprit';
import { isExt } from './external-culprit';
import { scalarMismatches } from './scalar-mismatches';
import { explicitRule, floorMultiple, ruleFor, toleranceFor } from './tolerance';

/**
 * Compare: a pure function of a recorded case and tolerances. No tfjs, no I/O; it can re-judge a
 * saved trace with new tolerances without re-running anything.
 */
/** The comparison's types (Verdict, StageVerdict, CaseComparison, …) are the trace contract's: src/trace/comparison.ts. */
export type { CaseComparison, CheckResult, Divergence, PairVerdict, ScalarMismatch, StageVerdict, Verdict } from '../../trace';

const SEVERITY: Record<Verdict, number> = {
  ok: 0,
  'out-of-tolerance': 1,
  'invariant-violated': 2,
  'nan-introduced': 3,
  'shape-mismatch': 4,
};

/** NaN on either side is a finding; an unmatched infinity makes relErr Infinity. */
export function pairVerdict(d: PairDiff, tolerance: number): Verdict {
  if (!d.shapeMatch) return 'shape-mismatch';
  if (d.nan[0] > 0 || d.nan[1] > 0) return 'nan-introduced';
  return d.relErr !== null && d.relErr > tolerance ? 'out-of-tolerance' : 'ok';
}

interface RecordFacts {
  where: Where;
  checks: CheckResult[];
  /** Engine paths whose values hold NaN here: a finding even where nothing compares them. */
  nan: PathName[];
}

/** Every record any path made, in schedule then pipeline order, with its checks and NaNs. */
function records(trace: CaseTrace): RecordFacts[] {
  const byKey = new Map<string, RecordFacts>();
  for (const [path, t] of Object.entries(trace.paths)) {
    for (const r of t!.stages) {
      const key = recordKey(r);
      const entry = byKey.get(key) ?? {
        where: { step: r.step, request: r.request, stage: r.stage, ...(r.chunk === undefined ? {} : { chunk: r.chunk }) },
        checks: [],
        nan: [],
      };
      for (const c of r.checks ?? []) entry.checks.push({ path: path as PathName, ...c });
      if (r.stats.nanCount > 0 && path !== 'reference') entry.nan.push(path as PathName);
      byKey.set(key, entry);
    }
  }
  const order = executionOrder(trace.pieces);
  return [...byKey.values()].sort((x, y) => order(x.where, y.where));
}

/** The RMS of the piece's logits as the reference (else cold) recorded them; 1 when neither did. */
function logitsRms(trace: CaseTrace, w: Where): number {
  for (const p of ['reference', 'cold'] as const) {
    const r = trace.paths[p]?.stages.find((x) => x.step === w.step && x.request === w.request && x.stage === 'logits');
    if (r && Number.isFinite(r.stats.rms)) return r.stats.rms;
  }
  return 1;
}

/** The bound a record's verdict was reached with: the third party's when it is the culprit there (externalTolerance). */
export const judgedTolerance = (
  v: Pick<StageVerdict, 'tolerance'> & Partial<Pick<StageVerdict, 'externalTolerance' | 'culprit'>>,
): number => (v.culprit === 'external' && v.externalTolerance !== undefined ? v.externalTolerance : v.tolerance);

export function compareCase(trace: CaseTrace, tolerances: ToleranceSpec): CaseComparison {
  const diffsByKey = new Map<string, PairDiff[]>();
  for (const d of trace.diffs) diffsByKey.set(recordKey(d), [...(diffsByKey.get(recordKey(d)) ?? []), d]);
  const stages: StageVerdict[] = [];
  let worstEngine: CaseComparison['worstEngine'] = null;
  const recs = records(trace);
  const third = trace.paths.external ? (trace.external ?? {}) : undefined;
  const hasRef = trace.paths.reference !== undefined;
  const narrow = trace.dtypes !== undefined;
  const floors = noiseFloors(
    recs.map((r) => r.where),
    (w) => diffsByKey.get(recordKey(w)) ?? [],
    recordKey,
  );
  for (const { where, checks, nan } of recs) {
    const diffs = diffsByKey.get(recordKey(where)) ?? [];
    const floor = withStorage(
      floors.get(recordKey(where))!,
      trace.dtypes,
      where.stage,
      diffs.some((d) => d.a === 'cold' || d.b === 'cold'),
    );
    const k = floorMultiple(ruleFor(where.stage, tolerances));
    const tolerance = toleranceFor(where.stage, tolerances, 'float32', floor.value);
    const ext = third
      ? thirdPartyBounds(floor.value, thirdPartyTerm(third, where.stage, logitsRms(trace, where), narrow), {
          k,
          tolerance,
          hasRef,
          explicit: explicitRule(where.stage, tolerances),
        })
      : null;
    const pairs = diffs.map((d): PairVerdict => ({
      a: d.a,
      b: d.b,
      verdict: pairVerdict(d, ext ? pairBound(d, ext.tolerance, tolerance, hasRef) : tolerance),
      relErr: d.relErr,
      normRatio: d.normRatio,
      ...(d.normOnly ? { normOnly: true } : {}),
    }));
    let verdict = pairs.reduce<Verdict>((w, p) => (SEVERITY[p.verdict] > SEVERITY[w] ? p.verdict : w), 'ok');
    if (
      checks.some((c) => c.violations > 0 && isInvariant(c.name) && c.path !== 'reference') &&
      SEVERITY[verdict] < SEVERITY['invariant-violated']
    )
      verdict = 'invariant-violated';
    if (nan.length) verdict = SEVERITY[verdict] > SEVERITY['nan-introduced'] ? verdict : 'nan-introduced';
    const culprit =
      verdict === 'ok'
        ? null
        : nan.length && !pairs.some((p) => p.verdict === 'nan-introduced')
          ? namedCulprit(nan)
          : culpritOf(pairs, checks, diffs);
    stages.push({
      ...where,
      verdict,
      tolerance,
      ...(k === null ? {} : { floorMultiple: k }),
      ...(ext ? { externalTolerance: ext.tolerance, externalFloor: ext.floor } : {}),
      floor,
      vsReference: vsReference(diffs),
      pairs,
      checks,
      culprit,
    });
    const e = findPair(pairs, 'mha', 'mqa');
    if (
      e?.relErr != null &&
      Number.isFinite(e.relErr) &&
      STAGES[where.stage].kind === 'activation' &&
      (!worstEngine || e.relErr > worstEngine.relErr)
    ) {
      worstEngine = { ...where, relErr: e.relErr };
    }
  }
  const first = stages.find((s) => s.verdict !== 'ok');
  return {
    verdict: first ? 'diverge' : 'agree',
    firstDivergence: first ? divergenceOf(first) : null,
    stages,
    worstEngine,
    scalarMismatches: scalarMismatches(trace),
  };
}

/**
 * A divergent record as a Divergence: the external path's failing pair when it is the culprit, else the engine-pair measure
 * (or the failing pair's).
 */
export function divergenceOf(v: StageVerdict): Divergence {
  const extBad =
    v.culprit === 'external'
      ? v.pairs.filter((p) => isExt(p) && p.verdict !== 'ok').sort((x, y) => Number(y.b === 'reference') - Number(x.b === 'reference'))[0]
      : undefined;
  const measure = extBad ?? findPair(v.pairs, 'mha', 'mqa') ?? v.pairs.find((p) => p.verdict !== 'ok') ?? v.pairs[0];
  const {
    verdict,
    culprit,
    pairs: _p,
    checks: _c,
    tolerance: _t,
    floorMultiple: _k,
    floor: _f,
    vsReference: _v,
    externalTolerance: _e,
    externalFloor: _ef,
    ...where
  } = v;
  return { ...where, verdict, culprit: culprit ?? 'unknown', relErr: measure?.relErr ?? null, normRatio: measure?.normRatio ?? null };
}
