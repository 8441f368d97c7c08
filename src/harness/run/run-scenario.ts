import { disposeLayer, sliceLayer, uploadLayer } from '../../paths/layer';
import type { ToleranceRule } from '../compare/tolerance';
import type { Log, Runtime } from '../../devices/runtime';
import type { ReferenceMode, ReplayMode, Scenario } from '../scenario/scenario';
import { openSource } from '../../checkpoints/checkpoint/source';
import { roundedSource } from '../../core/precision/source';
import { engineFor } from '../engines/llamacpp';
import { externalFor } from '../external/join';
import { planRun } from './pieces';
import type { Progress } from './progress';
import { NO_PROGRESS, reportingSource } from './progress';
import { LINEAR_NAMES } from '../../core/weights/layer';
import { checkDeviceLimits, planAttention, planKeyPart, planReference } from './plan';
import { ReferenceRunner } from './reference-runner';
import { runCase } from './run-case';
import type { WeightsReport } from './run-weights';
import { runWeights } from './run-weights';
import type { CaseResult, RunReport } from './trace';
import { RUN_FORMAT, RUN_VERSION } from './trace';
import type { UnjudgedReport } from '../compare/outcome';
import { withOutcome } from '../compare/outcome';

export interface RunOptions {
  runtime: Runtime;
  /** Overrides the scenario's `reference:`. */
  reference?: ReferenceMode;
  /** Overrides the scenario's `replay:`. */
  replay?: ReplayMode;
  /** Run the float64 reference on a worker thread (default true). */
  worker?: boolean;
  /** Progress lines for --verbose. */
  log?: Log;
  /** Where the run is (weights uploaded, pieces run), for a progress bar. */
  progress?: Progress;
  toolVersion: string;
  /** Keep the external backend's exchange directory (--keep-external). */
  keepExternal?: boolean;
  /** Bytes of engine-path values kept past their piece's comparison (default KEEP_BYTES: run-case.ts). */
  keepBytes?: number;
  /** Token-heads of a piece from which values no pair reads are not kept (default STATS_ONLY_FROM; retain.ts). */
  statsOnlyFrom?: number;
}

/**
 * Runs a scenario: weights built once and uploaded once, every case through both engine paths
 * on the device, the float64 reference overlapping on a worker thread. Returns data, prints nothing.
 */
export async function runScenario(s: Scenario, opts: RunOptions): Promise<RunReport> {
  const t0 = performance.now();
  const rt = opts.runtime;
  const log = opts.log ?? (() => {});
  const source = roundedSource(openSource(s.weights), s.precision.dtype); // weights and embeddings as the engine stores them
  const plan = planRun(s, source);
  const T = Math.max(...plan.pieces.map((p) => p.historySlots.length)); // longest key set
  const tokens = plan.pieces.reduce((n, p) => n + p.ids.length, 0);

  const mode = opts.reference ?? s.reference;
  const lo = Math.min(...s.cases.map((c) => c.heads.start));
  const hi = Math.max(...s.cases.map((c) => c.heads.start + c.heads.count));
  const union = { start: lo, count: hi - lo }; // every case is a slice of these heads
  const maxT = Math.max(...plan.pieces.map((p) => p.ids.length));
  const attn = planAttention(rt, s, union, maxT, T);
  checkDeviceLimits(rt, s.config, union, maxT, T, attn.attention !== null, plan.cold);
  plan.kernels = { ...plan.kernels, keyPart: planKeyPart(rt, s.config, union) }; // planned up front
  // the shaders earlier runs of this model and precision compiled, compiled again while the weights are made
  rt.pipelines?.warm(JSON.stringify({ config: s.config, dtype: s.precision.dtype }));
  const refPlan = planReference(mode, s.config, union, plan.pieces);
  // Submitted first: on its own thread the reference overlaps weight upload and both paths.
  const runner = refPlan.run ? new ReferenceRunner(opts.worker ?? true) : null;
  const reference =
    runner?.submit({ source: s.weights, cases: s.cases.map((c) => c.heads), pieces: plan.pieces, kernels: plan.kernels }) ?? null;
  reference?.catch(() => {}); // awaited per case below; never an unhandled rejection

  const cases: CaseResult[] = [];
  let weights: WeightsReport | null;
  let weightSeconds: number;
  try {
    const tw = performance.now();
    const lp = rt.linearPlan(tokens);
    log(`weights: ${source.label}, ${lp.layout} layout, ${lp.product} products, on ${rt.device.name}`);
    const progress = opts.progress ?? NO_PROGRESS;
    const phase = s.weights.kind === 'synthetic' ? 'weights' : 'checkpoint'; // synthesized from the seed, or read and dequantized
    const filled = reportingSource(source, progress, phase); // one unit per linear weight
    const full = { ...uploadLayer(rt, filled, union, tokens, s.precision.ropeAngles), attention: attn.attention };
    weightSeconds = (performance.now() - tw) / 1000;
    progress({ phase, done: LINEAR_NAMES.length, total: LINEAR_NAMES.length, label: source.label });
    const runs = s.cases.length * plan.pieces.length;
    try {
      const job = { source, layer: full, pieces: plan.pieces, kernels: plan.kernels, numSlots: plan.tables.numSlots, heads: union, tokens };
      weights = await runWeights(rt, s, job);
      for (const [i, c] of s.cases.entries()) {
        log(`case ${c.name}: ${c.label}, ${plan.pieces.length} pieces over ${plan.steps.length} steps, ${tokens} tokens`);
        const layer = c.heads.start === union.start && c.heads.count === union.count ? full : sliceLayer(rt, full, c.heads);
        const ref = reference && reference.then((r) => r.cases[i]!);
        ref?.catch(() => {}); // awaited in runCase; if the case fails first, the runner's close must not surface as an unhandled rejection
        try {
          cases.push(
            await runCase(rt, s, {
              spec: c,
              layer,
              pieces: plan.pieces,
              kernels: plan.kernels,
              numSlots: plan.tables.numSlots,
              cold: plan.cold,
              reference: ref,
              notes: [refPlan.note, attn.note].filter((n): n is string => Boolean(n)),
              replay: opts.replay ?? s.replay,
              external:
                engineFor(s, source, c.heads, plan.pieces, plan.kernels.kvSplits, opts.keepExternal ?? false, log) ??
                externalFor(s, source, c, plan.pieces, plan.kernels.kvSplits, opts.keepExternal ?? false, log),
              report: progress,
              ...(opts.keepBytes === undefined ? {} : { keepBytes: opts.keepBytes }),
              ...(opts.statsOnlyFrom === undefined ? {} : { statsOnlyFrom: opts.statsOnlyFrom }),
              progress: (done, piece) =>
                progress({
                  phase: 'pieces',
                  done: i * plan.pieces.length + done,
                  total: runs,
                  label: `case ${c.name} · step ${piece.step}, request ${piece.request}`,
                }),
            }),
          );
        } finally {
          if (layer !== full) disposeLayer(layer, full);
        }
      }
    } finally {
      disposeLayer(full);
    }
  } finally {
    await runner?.close();
  }
  const report: UnjudgedReport = {
    format: RUN_FORMAT,
    version: RUN_VERSION,
    tool: { name: 'mla-diff', version: opts.toolVersion },
    created: new Date().toISOString(),
    scenario: {
      name: s.name,
      file: s.file,
      description: s.description,
      preset: s.preset,
      config: s.config,
      seed: s.seed,
      weights: s.weights,
      ...(s.compareWeights ? { compareWeights: s.compareWeights } : {}),
      ...(s.tokenizer ? { tokenizer: s.tokenizer } : {}),
      ...(s.text ? { text: s.text } : {}),
      ...(s.bos ? { bos: s.bos } : {}),
      ...(s.tokens ? { tokens: s.tokens } : {}),
      requests: s.requests,
      schedule: s.schedule,
      reference: mode,
      replay: opts.replay ?? s.replay,
      faults: { mha: [...s.faults.mha], mqa: [...s.faults.mqa] },
      precision: s.precision,
      tolerances: { default: s.tolerances.default, stages: s.tolerances.stages as Record<string, ToleranceRule> },
      ...(s.expect ? { expect: s.expect } : {}),
      ...(s.external ? { external: s.external } : {}),
      ...(s.trace ? { trace: s.trace } : {}),
    },
    device: rt.device,
    verdict: cases.every((c) => c.comparison.verdict === 'agree') && weights?.comparison?.verdict !== 'diverge' ? 'agree' : 'diverge',
    ...(weights ? { weights } : {}),
    seconds: { weights: weightSeconds, reference: reference ? (await reference).seconds : null, total: (performance.now() - t0) / 1000 },
    cases,
  };
  return withOutcome(report, 'expect'); // judged by declared outcomes; `--no-expect` re-judges by agreement
}
