import { compareCase } from '../compare/compare';
import type { ToleranceSpec } from '../compare/tolerance';
import { preset } from '../model/presets';
import type { PathName, StageName } from '../probes/stages';
import { STAGE_NAMES, STAGES } from '../probes/stages';
import type { PairDiff } from '../run/diff';
import type { CaseResult, RunReport } from '../run/trace';
import { RUN_FORMAT, RUN_VERSION } from '../run/trace';
import { caseTrace, pathTrace, stagePairs } from './traces';

/**
 * A synthetic case result: every stage recorded by the paths that have it (norm 10 + stage index),
 * diffs from `rel` per stage (default: agreement), compared with `tolerances`.
 */
export function caseResult(opts: {
  name?: string;
  withReference?: boolean;
  stages?: readonly StageName[];
  rel?: Partial<Record<StageName, { engine?: number; mha?: number; mqa?: number }>>;
  tolerances?: ToleranceSpec;
  diffs?: (d: PairDiff[]) => PairDiff[];
} = {}): CaseResult {
  const withReference = opts.withReference ?? true;
  const stages = opts.stages ?? STAGE_NAMES;
  const paths: PathName[] = withReference ? ['mha', 'mqa', 'reference'] : ['mha', 'mqa'];
  const norms = (p: PathName) =>
    Object.fromEntries(stages.filter((s) => (STAGES[s].paths as readonly PathName[]).includes(p)).map((s) => [s, 10 + STAGE_NAMES.indexOf(s)]));
  const scalars = { softmax_scale: 0.2041, lse_base: 'e', rope_style: 'gptj', has_context: false, num_tokens: 3 };
  let diffs = stages.flatMap((s) => stagePairs(s, { engine: 1e-7, mha: 1e-7, mqa: 1e-7, ...opts.rel?.[s] }, withReference)
    .map((d) => (STAGES[s].kind === 'weight' && !opts.rel?.[s] ? { ...d, relErr: 0 } : d)));
  if (opts.diffs) diffs = opts.diffs(diffs);
  const trace = caseTrace(diffs, {
    name: opts.name ?? 'all-heads',
    paths: Object.fromEntries(paths.map((p) => [p, pathTrace(p, norms(p), scalars)])),
    seconds: { mha: 0.5, mqa: 0.25 },
  });
  return { trace, comparison: compareCase(trace, opts.tolerances ?? {}) };
}

export function runReport(cases: CaseResult[], extra: Partial<RunReport> = {}): RunReport {
  return {
    format: RUN_FORMAT,
    version: RUN_VERSION,
    tool: { name: 'mla-diff', version: '0.0.0-test' },
    created: '2025-01-01T00:00:00.000Z',
    scenario: {
      name: 'synthetic', file: null, preset: 'tiny', config: preset('tiny'), seed: 0, ids: [1, 2, 3], positions: [0, 1, 2],
      reference: 'on', faults: { mha: [], mqa: [] }, tolerances: {},
    },
    device: { name: 'wasm', backend: 'wasm', description: 'wasm: test device', software: false, reason: 'requested' },
    verdict: cases.every((c) => c.comparison.verdict === 'agree') ? 'agree' : 'diverge',
    seconds: { weights: 0.01, reference: 0.02, total: 1 },
    cases,
    ...extra,
  };
}
