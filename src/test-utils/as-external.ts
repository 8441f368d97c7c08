/**
 * A planted-fault run of ours re-read as if a third party had made the faulty path's records: for tests of the diagnosis
 * and origin of third-party culprits. Pure data, no tfjs.
 */
import type { CaseDetail, CaseResult, CaseTrace, ExternalInfo, PairDiff, PathTrace } from '../trace';
import type { MlaConfig } from '../core/model/config';
import type { ToleranceSpec } from '../trace';
import { compareCase } from '../harness/compare/compare';
import { diagnose } from '../harness/compare/diagnose';
import { diagnosisView } from '../harness/compare/origin';
import { withExternalOrigins } from '../harness/compare/origin-external';

export interface AsExternal {
  /** Keep the path's scalars as the third party's reported ones (default true): false, a third party that reports none. */
  scalars?: boolean;
  /** What the trace says of the third party (default a protocol backend, `node-mutant`). */
  info?: Partial<ExternalInfo>;
  /** Edits to the re-labelled trace before it is judged (take evidence away, plant a layout). */
  edit?: (t: CaseTrace) => void;
  /** Edits to the re-labelled detail. */
  editDetail?: (d: CaseDetail) => void;
}

const flip = (d: PairDiff): PairDiff => ({
  ...d,
  a: d.b,
  b: d.a,
  nan: [d.nan[1], d.nan[0]],
  normRatio: d.normRatio === null || d.normRatio === 0 ? d.normRatio : 1 / d.normRatio,
});

/**
 * Path `p`'s records, scalars and pairs become the external path's (its probe checks dropped: a third party runs none), `p`
 * leaves the case; the case is judged again (compare, the third party's record origins, the diagnosis on the view).
 */
export function asExternal(c: CaseResult, p: 'mha' | 'mqa', spec: { config: MlaConfig; tolerances: ToleranceSpec }, o: AsExternal = {}) {
  const t = structuredClone(c.trace);
  const mine = t.paths[p]!;
  delete t.paths[p];
  const ext: PathTrace = {
    ...mine,
    path: 'external',
    stages: mine.stages.map(({ checks: _c, ...r }) => r),
    pieces: o.scalars === false ? mine.pieces.map((x) => ({ ...x, scalars: {} })) : mine.pieces,
  };
  t.paths.external = ext;
  t.diffs = t.diffs.map((d) => (d.a === p ? { ...d, a: 'external' as const } : d.b === p ? flip({ ...d, b: 'external' }) : d));
  t.external = { name: 'node-mutant', kind: 'command', source: 'test', statsOnly: 0, ...o.info };
  if (t.dtypes) delete t.dtypes[p];
  o.edit?.(t);
  const comparison = compareCase(t, spec.tolerances);
  const records = structuredClone(c.detail?.records ?? []).map((r) => (r.a === p ? { ...r, a: 'external' as const } : r));
  const entropy = (c.detail?.entropy ?? []).map((e) => {
    const { [p]: x, ...rest } = e.paths;
    return { ...e, paths: x === undefined ? rest : { ...rest, external: x } };
  });
  const detail = c.detail ? { records, entropy } : undefined;
  if (detail) o.editDetail?.(detail);
  const replay = withExternalOrigins(undefined, t, comparison);
  const diagnosis = diagnose(t, diagnosisView(comparison, replay), spec.config, detail);
  return { trace: t, comparison, detail, replay, diagnosis } satisfies Partial<CaseResult>;
}
