import type { PathTrace, StageRecord, Where } from '../../trace';
import { recordKey } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';

/** How a record changed between two runs: present in one only, or its shape, NaN or Inf counts, or norm moved. */
export type ChangeKind = 'only-golden' | 'only-new' | 'shape' | 'nan' | 'inf' | 'norm';

/** One record's statistics as the comparison quotes them. */
export interface StatsView {
  shape: number[];
  l2: number;
  maxAbs: number;
  nanCount: number;
  infCount: number;
}

export interface RecordChange extends Where {
  path: PathName;
  kind: ChangeKind;
  golden?: StatsView;
  new?: StatsView;
  /** max(|Δ‖x‖|, |Δ max|x||) / max(‖x_golden‖, ‖x_new‖): a lower bound of the relative L2 error between the two runs' values. */
  moved?: number;
  /** The bound it was held to. */
  tolerance?: number;
}

const { abs, max } = Math;

const statsView = (r: StageRecord): StatsView => ({
  shape: r.stats.shape,
  l2: r.stats.l2,
  maxAbs: r.stats.maxAbs,
  nanCount: r.stats.nanCount,
  infCount: r.stats.infCount,
});
const whereOf = (r: StageRecord): Where => ({
  step: r.step,
  request: r.request,
  stage: r.stage,
  ...(r.chunk === undefined ? {} : { chunk: r.chunk }),
});

/**
 * How far a record moved between two runs, from statistics alone: |‖a‖ − ‖b‖| ≤ ‖a − b‖ and
 * |max|a| − max|b|| ≤ ‖a − b‖_∞ ≤ ‖a − b‖, so both differences over max(‖a‖, ‖b‖) are lower
 * bounds of the relative L2 error between the two runs' values. A change beyond the bound proves
 * the values moved; one within it proves nothing more than that.
 */
export function moved(a: StatsView, b: StatsView): number {
  const denom = max(a.l2, b.l2);
  const d = max(abs(a.l2 - b.l2), Number.isNaN(a.maxAbs) || Number.isNaN(b.maxAbs) ? 0 : abs(a.maxAbs - b.maxAbs));
  return denom > 0 ? d / denom : d > 0 ? Infinity : 0;
}

/** One path's record change, or null when it stays within `tolerance`. */
function recordChange(path: PathName, g: StageRecord, n: StageRecord, tolerance: number): RecordChange | null {
  const gv = statsView(g),
    nv = statsView(n);
  const base = { ...whereOf(g), path, golden: gv, new: nv };
  if (gv.shape.join('x') !== nv.shape.join('x')) return { ...base, kind: 'shape' };
  if (nv.nanCount !== gv.nanCount) return { ...base, kind: 'nan' };
  if (nv.infCount !== gv.infCount) return { ...base, kind: 'inf' };
  const m = moved(gv, nv);
  return m > tolerance ? { ...base, kind: 'norm', moved: m, tolerance } : null;
}

/** Every record change between the two cases' path traces; `tolerance` bounds each record's movement. */
export function caseChanges(
  golden: Partial<Record<PathName, PathTrace>>,
  fresh: Partial<Record<PathName, PathTrace>>,
  tolerance: (w: Where) => number,
): { changes: RecordChange[]; compared: number } {
  const changes: RecordChange[] = [];
  let compared = 0;
  for (const path of [...new Set([...Object.keys(golden), ...Object.keys(fresh)])] as PathName[]) {
    const gs = new Map((golden[path]?.stages ?? []).map((r) => [recordKey(r), r]));
    const ns = new Map((fresh[path]?.stages ?? []).map((r) => [recordKey(r), r]));
    for (const [key, g] of gs) {
      const n = ns.get(key);
      if (!n) {
        changes.push({ ...whereOf(g), path, kind: 'only-golden', golden: statsView(g) });
        continue;
      }
      compared++;
      const c = recordChange(path, g, n, tolerance(whereOf(g)));
      if (c) changes.push(c);
    }
    for (const [key, n] of ns) if (!gs.has(key)) changes.push({ ...whereOf(n), path, kind: 'only-new', new: statsView(n) });
  }
  return { changes, compared };
}
