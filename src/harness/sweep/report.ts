import type { Divergence } from '../compare/compare';
import type { ExpectationResult } from '../compare/expect';
import type { RunReport } from '../run/trace';
import type { Judge } from '../../trace';
import { withOutcome } from '../compare/outcome';
import type { Culprit, Expectation } from '../scenario/scenario';
import type { AxisValue } from './expand';
import type { AxisName } from './schema';
import type { ShardSpec } from './shard';

/**
 * The sweep report (JSON, format mla-diff/sweep version 1): one row per matrix point with its
 * verdict, first divergence and whether it met its expectation; the run reports' case summaries
 * (the full run report only with --full). Shards of one matrix carry its hash; merge joins them.
 */
export const SWEEP_FORMAT = 'mla-diff/sweep';
export const SWEEP_VERSION = 1;

export type FirstDivergence = Pick<Divergence, 'step' | 'request' | 'stage' | 'chunk' | 'culprit' | 'relErr'>;

export interface SweepCase {
  name: string;
  label: string;
  verdict: 'agree' | 'diverge';
  firstDivergence: FirstDivergence | null;
  /** The first likely cause, with the fault it matches. */
  cause: string | null;
  expectation: ExpectationResult | null;
}

export interface SweepPoint {
  /** Index in the full matrix (0-based). */
  index: number;
  id: string;
  axes: Partial<Record<AxisName, AxisValue>>;
  /** The tfjs backend that ran it (null when the run failed before choosing one). */
  device: string | null;
  verdict: 'agree' | 'diverge' | 'error';
  /** The first divergence of the first divergent case. */
  firstDivergence: FirstDivergence | null;
  culprit: Culprit | null;
  expect: Expectation | null;
  /** The point passes under the rule (its expect: met, or its paths agree; by agreement under --no-expect). */
  met: boolean;
  misses: string[];
  cases: SweepCase[];
  /** The worker's failure (exit 2: bad input such as an unavailable device, 3: internal). */
  error: { exit: number; message: string } | null;
  seconds: number;
  /** The whole run report (--full). */
  report?: RunReport;
}

export interface SweepReport {
  format: typeof SWEEP_FORMAT;
  version: typeof SWEEP_VERSION;
  tool: { name: 'mla-diff'; version: string };
  created: string;
  matrix: { name: string; file: string; hash: string; points: number };
  /** This report's shard (null: every point). */
  shard: ShardSpec | null;
  /** A merged report: the shards it joins. */
  merged?: ShardSpec[];
  /** Ids of this report's points that are absent (merge --allow-missing). */
  missing: string[];
  points: SweepPoint[];
  summary: { points: number; met: number; unmet: number; errors: number };
  seconds: number;
}

const first = (d: Divergence | null): FirstDivergence | null =>
  d && {
    step: d.step,
    request: d.request,
    stage: d.stage,
    ...(d.chunk === undefined ? {} : { chunk: d.chunk }),
    culprit: d.culprit,
    relErr: d.relErr,
  };

/** A point's row from its run report. */
export function pointFromRun(
  base: Pick<SweepPoint, 'index' | 'id' | 'axes'>,
  saved: RunReport,
  seconds: number,
  full: boolean,
  judge: Judge = 'expect',
): SweepPoint {
  const r = judge === saved.judge ? saved : withOutcome(saved, judge);
  const cases: SweepCase[] = r.cases.map((c) => {
    const top = c.diagnosis[0];
    return {
      name: c.trace.name,
      label: c.trace.label,
      verdict: c.comparison.verdict,
      firstDivergence: first(c.comparison.firstDivergence),
      cause: top ? `${top.cause}${top.matches ? ` (${top.matches})` : ''}` : null,
      expectation: c.expectation ?? null,
    };
  });
  const misses =
    r.judge === 'agreement'
      ? []
      : [
          ...r.cases.flatMap((c) => (c.expectation?.misses ?? []).map((m) => (r.cases.length > 1 ? `${c.trace.name}: ${m}` : m))),
          ...(r.weights?.expectation?.misses ?? []).map((m) => `weights: ${m}`),
        ];
  const fd = cases.find((c) => c.firstDivergence)?.firstDivergence ?? null;
  return {
    ...base,
    device: r.device.name,
    verdict: r.verdict,
    firstDivergence: fd,
    culprit: fd?.culprit ?? null,
    expect: r.scenario.expect ?? null,
    met: r.outcome === 'pass', // the one rule (src/harness/compare/outcome.ts), as run's exit code
    misses,
    cases,
    error: null,
    seconds,
    ...(full ? { report: r } : {}),
  };
}

export function pointFromError(
  base: Pick<SweepPoint, 'index' | 'id' | 'axes'>,
  expect: Expectation | null,
  error: { exit: number; message: string },
  seconds: number,
): SweepPoint {
  return {
    ...base,
    device: null,
    verdict: 'error',
    firstDivergence: null,
    culprit: null,
    expect,
    met: false,
    misses: [error.message],
    cases: [],
    error,
    seconds,
  };
}

export function summarize(points: readonly SweepPoint[]): SweepReport['summary'] {
  const errors = points.filter((p) => p.error).length;
  const met = points.filter((p) => p.met).length;
  return { points: points.length, met, unmet: points.length - met - errors, errors };
}

/** 0 every point met its expectation, 1 some did not (or some are missing), 2/3 a worker failed on bad input / internally. */
export function sweepExit(r: SweepReport): number {
  const worst = Math.max(0, ...r.points.map((p) => p.error?.exit ?? 0));
  if (worst >= 2) return worst;
  return r.points.every((p) => p.met) && r.missing.length === 0 ? 0 : 1;
}
