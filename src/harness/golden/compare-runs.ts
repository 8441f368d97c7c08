import { MIN_FLOOR } from '../compare/floors';
import { DEFAULT_REL } from '../compare/tolerance';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import type { CaseResult, DeviceInfo, RunReport, Where } from '../../trace';
import type { RecordChange } from './case-changes';
import { caseChanges } from './case-changes';

/**
 * Golden comparison: two saved runs (golden vs new, CPU vs GPU, two commits) matched scenario by
 * scenario, case by case, record by record and path by path. Saved runs hold statistics, not
 * values, so records are compared by their norms, max-abs, NaN/Inf counts and shapes, and cases by
 * verdict, first divergence and culprit. Pure: reports in, comparison out (docs/golden.md).
 */
export const COMPARE_FORMAT = 'mla-diff/compare';
export const COMPARE_VERSION = 1;

/** Default k: a record may move k × its noise floor between runs (the selftest's clean runs stay within 2.3 floors). */
export const DEFAULT_FLOOR_K = 8;

/** How a record's movement is bounded: `rel` fixes the bound; else k × the golden record's noise floor, or `fallback` without one. */
export interface CompareRule {
  rel?: number;
  k: number;
  fallback: number;
}

export const DEFAULT_RULE: CompareRule = { k: DEFAULT_FLOOR_K, fallback: DEFAULT_REL.float32 };

/** A record's change between the two runs: src/harness/golden/case-changes.ts. */
export type { ChangeKind, RecordChange, StatsView } from './case-changes';

type CaseView = Pick<CaseResult['comparison'], 'verdict'> & { firstDivergence: (Where & { culprit: string }) | null };

export interface CaseDiff {
  name: string;
  status: 'same' | 'changed' | 'only-golden' | 'only-new';
  golden?: CaseView;
  new?: CaseView;
  /** Verdict, first divergence or culprit differ. */
  outcomeChanged: boolean;
  /** Every record change, in execution order. */
  changes: RecordChange[];
  /** The first changed record (execution order), or null. */
  firstChange: RecordChange | null;
  /** Records compared (path × record present in both). */
  compared: number;
}

export interface ScenarioDiff {
  name: string;
  status: 'same' | 'changed' | 'only-golden' | 'only-new';
  cases: CaseDiff[];
}

export interface RunSide {
  file: string;
  device: DeviceInfo;
  created: string;
  tool: string;
}

export interface RunsComparison {
  format: typeof COMPARE_FORMAT;
  version: typeof COMPARE_VERSION;
  golden: RunSide;
  new: RunSide;
  rule: CompareRule;
  /** The two runs' devices differ (CPU vs GPU): a note, not an error. */
  deviceDiffers: boolean;
  verdict: 'same' | 'changed';
  scenarios: ScenarioDiff[];
}

const view = (c: CaseResult): CaseView => ({
  verdict: c.comparison.verdict,
  firstDivergence: c.comparison.firstDivergence && {
    step: c.comparison.firstDivergence.step,
    request: c.comparison.firstDivergence.request,
    stage: c.comparison.firstDivergence.stage,
    ...(c.comparison.firstDivergence.chunk === undefined ? {} : { chunk: c.comparison.firstDivergence.chunk }),
    culprit: c.comparison.firstDivergence.culprit,
  },
});

function diffCase(g: CaseResult | undefined, n: CaseResult | undefined, rule: CompareRule): CaseDiff {
  const name = (g ?? n)!.trace.name;
  if (!g || !n)
    return {
      name,
      status: g ? 'only-golden' : 'only-new',
      ...(g ? { golden: view(g) } : { new: view(n!) }),
      outcomeChanged: true,
      changes: [],
      firstChange: null,
      compared: 0,
    };
  const floors = new Map(g.comparison.stages.map((s) => [recordKey(s), s.floor?.value]));
  const tolerance = (w: Where): number => {
    if (rule.rel !== undefined) return rule.rel;
    const floor = floors.get(recordKey(w));
    return floor === undefined ? rule.fallback : rule.k * Math.max(floor, MIN_FLOOR);
  };
  const { changes, compared } = caseChanges(g.trace.paths, n.trace.paths, tolerance);
  changes.sort(executionOrder(g.trace.pieces));
  const gv = view(g),
    nv = view(n);
  const outcomeChanged = JSON.stringify(gv) !== JSON.stringify(nv);
  return {
    name,
    status: outcomeChanged || changes.length ? 'changed' : 'same',
    golden: gv,
    new: nv,
    outcomeChanged,
    changes,
    firstChange: changes[0] ?? null,
    compared,
  };
}

function pairUp<T>(gs: T[], ns: T[], key: (x: T) => string): [T | undefined, T | undefined][] {
  const names = [...new Set([...gs.map(key), ...ns.map(key)])];
  return names.map((k) => [gs.find((x) => key(x) === k), ns.find((x) => key(x) === k)]);
}

const side = (file: string, r: RunReport): RunSide => ({ file, device: r.device, created: r.created, tool: r.tool.version });

/** Compares two saved runs (each one or more scenario reports). */
export function compareRuns(
  golden: { file: string; runs: RunReport[] },
  fresh: { file: string; runs: RunReport[] },
  rule: CompareRule = DEFAULT_RULE,
): RunsComparison {
  const scenarios = pairUp(golden.runs, fresh.runs, (r) => r.scenario.name).map(([g, n]): ScenarioDiff => {
    const cases = pairUp(g?.cases ?? [], n?.cases ?? [], (c) => c.trace.name).map(([gc, nc]) => diffCase(gc, nc, rule));
    const status = !g ? 'only-new' : !n ? 'only-golden' : cases.every((c) => c.status === 'same') ? 'same' : 'changed';
    return { name: (g ?? n)!.scenario.name, status, cases };
  });
  const g0 = golden.runs[0]!,
    n0 = fresh.runs[0]!;
  return {
    format: COMPARE_FORMAT,
    version: COMPARE_VERSION,
    golden: side(golden.file, g0),
    new: side(fresh.file, n0),
    rule,
    deviceDiffers: g0.device.name !== n0.device.name || g0.device.description !== n0.device.description,
    verdict: scenarios.every((s) => s.status === 'same') ? 'same' : 'changed',
    scenarios,
  };
}
