import type { PathTrace } from '../probes/recorder';
import type { PathName, ScalarName, ScalarValue, StageName } from '../probes/stages';
import { STAGES } from '../probes/stages';
import type { TensorStats } from '../probes/stats';
import type { PairDiff } from '../run/diff';
import type { CaseTrace } from '../run/trace';

/** Synthetic traces for tests of compare and reports: no tfjs, just the data shapes. */

/** A diff of one stage between two paths; `relErr` as given, everything else plausible. */
export function pairDiff(stage: StageName, a: PathName, b: PathName, relErr: number | null, extra: Partial<PairDiff> = {}): PairDiff {
  return {
    stage, a, b,
    shapeMatch: true,
    relErr,
    maxAbsErr: relErr === null ? null : relErr * 2,
    maxAbsErrAt: relErr === null ? null : [0, 1],
    cosine: relErr === null ? null : 1 - relErr,
    normRatio: 1,
    nonFinite: [0, 0],
    ...extra,
  };
}

export function stats(l2: number, extra: Partial<TensorStats> = {}): TensorStats {
  return {
    shape: [2, 3], dtype: 'float32', layout: 't d', size: 6, l2, rms: l2 / Math.sqrt(6), mean: 0, maxAbs: l2, maxAbsAt: [0, 0],
    nanCount: 0, infCount: 0, ...extra,
  };
}

/** One path's trace: the L2 norm of each stage it recorded, and its scalars. */
export function pathTrace(path: PathName, norms: Partial<Record<StageName, number>>, scalars: Partial<Record<ScalarName, ScalarValue>> = {}): PathTrace {
  return {
    path,
    precision: path === 'reference' ? 'float64' : 'float32',
    stages: (Object.entries(norms) as [StageName, number][]).map(([stage, l2]) => ({ stage, stats: stats(l2, { dtype: path === 'reference' ? 'float64' : 'float32' }) })),
    scalars,
  };
}

export function caseTrace(diffs: PairDiff[], extra: Partial<CaseTrace> = {}): CaseTrace {
  return {
    name: 'all-heads',
    label: 'all 4 heads',
    heads: { start: 0, count: 4 },
    totalHeads: 4,
    tokens: 3,
    paths: {},
    diffs,
    expectedSoftmaxScale: 0.2041,
    seconds: {},
    notes: [],
    ...extra,
  };
}

/** The pairs recorded at a stage, by its `paths` in the stage table: engine pair and each engine path vs the reference. */
export function stagePairs(stage: StageName, rel: { engine?: number | null; mha?: number | null; mqa?: number | null }, withReference = true): PairDiff[] {
  const paths = STAGES[stage].paths;
  const out: PairDiff[] = [];
  if (paths.includes('mha') && paths.includes('mqa')) out.push(pairDiff(stage, 'mha', 'mqa', rel.engine ?? 0));
  if (withReference) {
    if (paths.includes('mha')) out.push(pairDiff(stage, 'mha', 'reference', rel.mha ?? 0));
    if (paths.includes('mqa')) out.push(pairDiff(stage, 'mqa', 'reference', rel.mqa ?? 0));
  }
  return out;
}
