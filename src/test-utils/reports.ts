import { FP32_PRECISION } from '../core/precision/plan';
import { compareCase } from '../harness/compare/compare';
import { diagnose } from '../harness/compare/diagnose';
import type { ToleranceSpec } from '../harness/compare/tolerance';
import { preset } from '../core/model/presets';
import type { PathTrace, StageRecord } from '../core/probes/recorder';
import type { PathName, ScalarName, ScalarValue, StageName } from '../trace/stages';
import { STAGE_NAMES, STAGES } from '../trace/stages';
import type { PairDiff, Where } from '../harness/run/diff';
import type { CaseResult, PieceInfo, RunReport } from '../harness/run/trace';
import { withOutcome } from '../harness/compare/outcome';
import { RUN_FORMAT, RUN_VERSION } from '../harness/run/trace';
import type { Rel } from './traces';
import { PIECE0, pieceRecords, stageRecord } from './traces';
import { stagePairs } from './pairs';
import { caseTrace } from './case-traces';

/** The norm every path records at a stage in synthetic cases: 10 + its pipeline index (+ chunk/10). */
export const normOf = (w: Where): number => 10 + STAGE_NAMES.indexOf(w.stage) + (w.chunk ?? 0) / 10;

/**
 * A synthetic case result: each piece records its stages (`pieceRecords`: chunked stages per
 * context chunk) by the paths that have them, with norms `normOf`; diffs from `rel` (per stage,
 * or per record with a function; default agreement at 1e-7, weights exact), compared with
 * `tolerances`. One piece (PIECE0), no cold path, with the reference, unless told otherwise.
 */
export function caseResult(
  opts: {
    name?: string;
    withReference?: boolean;
    withCold?: boolean;
    pieces?: PieceInfo[];
    stages?: readonly StageName[];
    rel?: Partial<Record<StageName, Rel>> | ((w: Where) => Rel | undefined);
    tolerances?: ToleranceSpec;
    diffs?: (d: PairDiff[]) => PairDiff[];
    /** Extra fields for a path's record (checks, NaN stats). */
    records?: (path: PathName, w: Where) => Partial<Omit<StageRecord, keyof Where>> | undefined;
  } = {},
): CaseResult {
  const withReference = opts.withReference ?? true;
  const withCold = opts.withCold ?? false;
  const pieces = opts.pieces ?? [PIECE0];
  const stages = opts.stages ?? STAGE_NAMES;
  const paths: PathName[] = ['mha', 'mqa', ...(withCold ? ['cold' as const] : []), ...(withReference ? ['reference' as const] : [])];
  const where = pieces.flatMap((p) => pieceRecords(p, stages));
  const relOf = (w: Where) => (typeof opts.rel === 'function' ? opts.rel(w) : opts.rel?.[w.stage]);
  const scalars = (p: PieceInfo): Partial<Record<ScalarName, ScalarValue>> => ({
    softmax_scale: 0.2041,
    lse_base: 'e',
    rope_style: 'gptj',
    has_context: p.chunks > 0,
    num_tokens: p.count,
  });
  const trace0: Record<string, PathTrace> = Object.fromEntries(
    paths.map((path) => [
      path,
      {
        path,
        precision: path === 'reference' ? 'float64' : 'float32',
        stages: where
          .filter((w) => (STAGES[w.stage].paths as readonly PathName[]).includes(path))
          .map((w) => stageRecord(w, normOf(w), opts.records?.(path, w) ?? {}, path === 'reference' ? 'float64' : 'float32')),
        pieces: pieces.filter((p) => p.kind !== 'cached').map((p) => ({ step: p.step, request: p.request, scalars: scalars(p) })),
      } satisfies PathTrace,
    ]),
  );
  let diffs = where.flatMap((w) => {
    const rel = relOf(w);
    return stagePairs(
      w.stage,
      { engine: 1e-7, mha: 1e-7, mqa: 1e-7, cold: 1e-7, mhaCold: 1e-7, mqaCold: 1e-7, ...rel },
      { reference: withReference, cold: withCold, where: w },
    ).map((d) => (STAGES[w.stage].kind === 'weight' && !rel ? { ...d, relErr: 0 } : d));
  });
  if (opts.diffs) diffs = opts.diffs(diffs);
  const trace = caseTrace(diffs, {
    name: opts.name ?? 'all-heads',
    pieces,
    paths: trace0,
    seconds: { mha: 0.5, mqa: 0.25, ...(withCold ? { cold: 0.125 } : {}) },
  });
  const comparison = compareCase(trace, opts.tolerances ?? {});
  return {
    trace,
    comparison,
    diagnosis: diagnose(trace, comparison, preset('tiny')),
    outcome: comparison.verdict === 'agree' ? 'pass' : 'fail',
  };
}

/** A report of these cases, judged (withOutcome) under `extra.judge` (default `expect`). */
export function runReport(cases: CaseResult[], extra: Partial<RunReport> = {}): RunReport {
  return withOutcome(
    {
      format: RUN_FORMAT,
      version: RUN_VERSION,
      tool: { name: 'mla-diff', version: '0.0.0-test' },
      created: '2025-01-01T00:00:00.000Z',
      scenario: {
        name: 'synthetic',
        file: null,
        preset: 'tiny',
        config: preset('tiny'),
        seed: 0,
        weights: { kind: 'synthetic', config: preset('tiny'), seed: 0 },
        requests: [{ name: 'prompt', ids: [1, 2, 3], startStep: 0, positionOffset: 0, phases: [{ kind: 'prefill', tokens: 3 }] }],
        schedule: {
          blockSize: 16,
          decodeThreshold: 1,
          contextChunk: 65_536,
          kvSplits: 1,
          prefillKernel: 'fa3',
          cold: 'auto',
          attention: 'auto',
        },
        reference: 'on',
        replay: 'auto',
        faults: { mha: [], mqa: [] },
        precision: FP32_PRECISION,
        tolerances: {},
      },
      device: { name: 'wasm', backend: 'wasm', description: 'wasm: test device', software: false, reason: 'requested' },
      verdict: cases.every((c) => c.comparison.verdict === 'agree') ? 'agree' : 'diverge',
      seconds: { weights: 0.01, reference: 0.02, total: 1 },
      cases,
      ...extra,
    },
    extra.judge ?? 'expect',
  );
}
