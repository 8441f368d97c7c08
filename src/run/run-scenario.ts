import type { LayerInput } from '../backends/backend';
import { disposeLayer, sliceLayer, uploadLayer } from '../backends/layer';
import type { Log, Runtime } from '../runtime/device';
import type { ReferenceMode, Scenario } from '../scenario/scenario';
import { SyntheticWeights } from '../weights/synthetic';
import type { SourceSpec } from '../weights/source';
import { checkDeviceLimits, planReference } from './plan';
import { ReferenceRunner } from './reference-runner';
import { runCase } from './run-case';
import type { CaseResult, RunReport } from './trace';
import { RUN_FORMAT, RUN_VERSION } from './trace';

export interface RunOptions {
  runtime: Runtime;
  /** Overrides the scenario's `reference:`. */
  reference?: ReferenceMode;
  /** Run the float64 reference on a worker thread (default true). */
  worker?: boolean;
  /** Progress lines for --verbose. */
  log?: Log;
  toolVersion: string;
}

/**
 * Runs a scenario: weights built once and uploaded once, every case through both engine paths
 * on the device, the float64 reference overlapping on a worker thread. Returns data, prints nothing.
 */
export async function runScenario(s: Scenario, opts: RunOptions): Promise<RunReport> {
  const t0 = performance.now();
  const rt = opts.runtime;
  const log = opts.log ?? (() => {});
  const T = s.ids.length;
  const spec: SourceSpec = { kind: 'synthetic', config: s.config, seed: s.seed };
  const source = new SyntheticWeights(s.config, s.seed);
  const input: LayerInput = { ids: s.ids, positions: s.positions, embeddings: source.embeddings(s.ids) };

  const mode = opts.reference ?? s.reference;
  const lo = Math.min(...s.cases.map((c) => c.heads.start));
  const hi = Math.max(...s.cases.map((c) => c.heads.start + c.heads.count));
  const union = { start: lo, count: hi - lo }; // every case is a slice of these heads
  checkDeviceLimits(rt, s.config, union, T);
  const plan = planReference(mode, s.config, union, T);
  // Submitted first: on its own thread the reference overlaps weight upload and both paths.
  const runner = plan.run ? new ReferenceRunner(opts.worker ?? true) : null;
  const reference = runner?.submit({ source: spec, cases: s.cases.map((c) => c.heads), input }) ?? null;
  reference?.catch(() => {}); // awaited per case below; never an unhandled rejection

  const cases: CaseResult[] = [];
  let weightSeconds = 0;
  try {
    const tw = performance.now();
    const lp = rt.linearPlan(T);
    log(`weights: ${source.label}, ${lp.layout} layout, ${lp.product} products, on ${rt.device.name}`);
    const full = uploadLayer(rt, source, union, T);
    weightSeconds = (performance.now() - tw) / 1000;
    try {
      for (const [i, c] of s.cases.entries()) {
        log(`case ${c.name}: ${c.label}, ${T} tokens`);
        const layer = c.heads.start === union.start && c.heads.count === union.count ? full : sliceLayer(rt, full, c.heads);
        const ref = reference && reference.then((r) => r.cases[i]!);
        try {
          cases.push(await runCase(rt, s, c, layer, input, ref, plan.note ? [plan.note] : []));
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
  return {
    format: RUN_FORMAT,
    version: RUN_VERSION,
    tool: { name: 'mla-diff', version: opts.toolVersion },
    created: new Date().toISOString(),
    scenario: {
      name: s.name, file: s.file, description: s.description, preset: s.preset, config: s.config, seed: s.seed,
      text: s.text, ids: s.ids, positions: s.positions, reference: mode,
      faults: { mha: [...s.faults.mha], mqa: [...s.faults.mqa] },
      tolerances: { default: s.tolerances.default, stages: s.tolerances.stages as Record<string, number> },
      ...(s.expect ? { expect: s.expect } : {}),
    },
    device: rt.device,
    verdict: cases.every((c) => c.comparison.verdict === 'agree') ? 'agree' : 'diverge',
    seconds: { weights: weightSeconds, reference: reference ? (await reference).seconds : null, total: (performance.now() - t0) / 1000 },
    cases,
  };
}
