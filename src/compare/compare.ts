import type { PathName, ScalarName, ScalarValue, StageName } from '../probes/stages';
import { STAGE_NAMES, STAGES } from '../probes/stages';
import type { CaseTrace } from '../run/trace';
import type { PairDiff } from '../run/diff';
import type { Culprit } from '../scenario/scenario';
import type { ToleranceSpec } from './tolerance';
import { toleranceFor } from './tolerance';

/**
 * Compare: a pure function of a recorded case and tolerances. No tfjs, no I/O; it can re-judge a
 * saved trace with new tolerances without re-running anything.
 */
export type Verdict = 'ok' | 'out-of-tolerance' | 'nan-introduced' | 'shape-mismatch';
const SEVERITY: Record<Verdict, number> = { ok: 0, 'out-of-tolerance': 1, 'nan-introduced': 2, 'shape-mismatch': 3 };

export interface PairVerdict {
  a: PathName;
  b: PathName;
  verdict: Verdict;
  relErr: number | null;
  normRatio: number | null;
}

export interface StageVerdict {
  stage: StageName;
  verdict: Verdict;
  tolerance: number;
  pairs: PairVerdict[];
  /** Which path is wrong, when the stage diverges. */
  culprit: Culprit | null;
}

export interface Divergence {
  stage: StageName;
  verdict: Verdict;
  culprit: Culprit;
  /** The engine-pair (or one-sided vs reference) measure that failed. */
  relErr: number | null;
  normRatio: number | null;
}

export interface ScalarMismatch {
  name: ScalarName;
  values: Partial<Record<PathName, ScalarValue>>;
}

export interface CaseComparison {
  verdict: 'agree' | 'diverge';
  firstDivergence: Divergence | null;
  stages: StageVerdict[];
  /** Largest mha↔mqa relative error over the stages both paths have. */
  worstEngine: { stage: StageName; relErr: number } | null;
  scalarMismatches: ScalarMismatch[];
}

/** Any NaN/Inf on either side is a finding: no stage of either path should produce one. */
export function pairVerdict(d: PairDiff, tolerance: number): Verdict {
  if (!d.shapeMatch) return 'shape-mismatch';
  if (d.nonFinite[0] > 0 || d.nonFinite[1] > 0) return 'nan-introduced';
  return d.relErr !== null && d.relErr > tolerance ? 'out-of-tolerance' : 'ok';
}

const find = (pairs: PairVerdict[], a: PathName, b: PathName) => pairs.find((p) => p.a === a && p.b === b);

/** Who is wrong at a divergent stage: triangulate the two engine paths against the reference. */
export function culpritOf(pairs: PairVerdict[], diffs: PairDiff[]): Culprit {
  const engine = find(pairs, 'mha', 'mqa');
  const vsRef = (p: PathName) => find(pairs, p, 'reference');
  if (!engine) {
    const side = pairs.find((p) => p.verdict !== 'ok');
    return side && side.a !== 'reference' ? (side.a as Culprit) : 'unknown';
  }
  const [rMha, rMqa] = [vsRef('mha'), vsRef('mqa')];
  if (rMha && rMqa) {
    const mhaBad = rMha.verdict !== 'ok';
    const mqaBad = rMqa.verdict !== 'ok';
    if (engine.verdict === 'ok') return mhaBad && mqaBad ? 'shared' : 'unknown';
    if (mhaBad !== mqaBad) return mhaBad ? 'mha' : 'mqa';
    return mhaBad ? 'both' : 'unknown';
  }
  const d = diffs.find((x) => x.a === 'mha' && x.b === 'mqa');
  if (engine.verdict === 'nan-introduced' && d) {
    const [inMha, inMqa] = [d.nonFinite[0] > 0, d.nonFinite[1] > 0];
    return inMha && inMqa ? 'both' : inMha ? 'mha' : 'mqa';
  }
  return 'unknown';
}

const SCALARS_COMPARED: ScalarName[] = ['softmax_scale', 'lse_base', 'rope_style', 'has_context', 'causal', 'num_tokens', 'num_context_tokens'];

function scalarMismatches(trace: CaseTrace): ScalarMismatch[] {
  const out: ScalarMismatch[] = [];
  for (const name of SCALARS_COMPARED) {
    const values: ScalarMismatch['values'] = {};
    for (const [p, t] of Object.entries(trace.paths)) if (t && t.scalars[name] !== undefined) values[p as PathName] = t.scalars[name];
    const vs = Object.values(values);
    const same = (x: ScalarValue, y: ScalarValue) =>
      typeof x === 'number' && typeof y === 'number' ? Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(x), Math.abs(y)) : x === y;
    if (vs.some((v) => !same(v, vs[0]!))) out.push({ name, values });
  }
  return out;
}

export function compareCase(trace: CaseTrace, tolerances: ToleranceSpec): CaseComparison {
  const stages: StageVerdict[] = [];
  let worstEngine: CaseComparison['worstEngine'] = null;
  for (const stage of STAGE_NAMES) {
    const diffs = trace.diffs.filter((d) => d.stage === stage);
    if (!diffs.length) continue;
    const tolerance = toleranceFor(stage, tolerances);
    const pairs = diffs.map((d) => ({ a: d.a, b: d.b, verdict: pairVerdict(d, tolerance), relErr: d.relErr, normRatio: d.normRatio }));
    const verdict = pairs.reduce<Verdict>((w, p) => (SEVERITY[p.verdict] > SEVERITY[w] ? p.verdict : w), 'ok');
    stages.push({ stage, verdict, tolerance, pairs, culprit: verdict === 'ok' ? null : culpritOf(pairs, diffs) });
    const e = find(pairs, 'mha', 'mqa');
    if (e?.relErr != null && STAGES[stage].kind === 'activation' && (!worstEngine || e.relErr > worstEngine.relErr)) {
      worstEngine = { stage, relErr: e.relErr };
    }
  }
  const first = stages.find((s) => s.verdict !== 'ok');
  let firstDivergence: Divergence | null = null;
  if (first) {
    const measure = find(first.pairs, 'mha', 'mqa') ?? first.pairs.find((p) => p.verdict !== 'ok')!;
    firstDivergence = { stage: first.stage, verdict: first.verdict, culprit: first.culprit ?? 'unknown', relErr: measure.relErr, normRatio: measure.normRatio };
  }
  return { verdict: first ? 'diverge' : 'agree', firstDivergence, stages, worstEngine, scalarMismatches: scalarMismatches(trace) };
}
