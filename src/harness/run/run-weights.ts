import type { KernelOptions, PieceInput } from '../../paths/backend';
import type { DeviceLayer } from '../../paths/layer';
import { disposeLayer, uploadLayer } from '../../paths/layer';
import type { ExpectationResult, WeightsComparison, WeightsExpectation, WeightsReport } from '../../trace';
import { compareWeights } from '../compare/weights';
import type { Runtime } from '../../devices/runtime';
import type { Scenario } from '../scenario/scenario';
import type { HeadSlice, WeightSource } from '../../core/weights/layer';
import { weightValues } from '../../core/weights/records';
import { openSource } from '../../checkpoints/checkpoint/source';
import { runAcross } from './across';
import { planRun } from './pieces';
import { diffWeights } from './weights-diff';

/** The weight stage W of a run (its records and comparison): src/trace/weights.ts. */
export type { WeightsReport } from '../../trace';

export interface WeightsJob {
  source: WeightSource;
  layer: DeviceLayer;
  pieces: readonly PieceInput[];
  kernels: KernelOptions;
  numSlots: number;
  heads: HeadSlice;
  tokens: number;
}

export function checkWeightsExpectation(e: WeightsExpectation, c: WeightsComparison): ExpectationResult {
  const misses: string[] = [];
  if (c.verdict !== e.outcome) misses.push(`weights: outcome ${c.verdict}, expected ${e.outcome}`);
  if (e.first_divergence && c.firstWeight !== e.first_divergence)
    misses.push(`first differing weight ${c.firstWeight ?? 'none'}, expected ${e.first_divergence}`);
  for (const p of ['mha', 'mqa'] as const) {
    const got = c.firstActivation[p]?.stage;
    if (e[p] && got !== e[p]) misses.push(`${p}: first activation moved ${got ?? 'none'}, expected ${e[p]}`);
  }
  return { met: misses.length === 0, misses };
}

/**
 * Records W for the scenario's weights (checkpoints always; synthetic weights are named by their
 * seed, so only when compared) and, given compare_weights:, diffs every weight and runs both
 * engine paths on the second source to see where the numbers first move.
 */
export async function runWeights(rt: Runtime, s: Scenario, job: WeightsJob): Promise<WeightsReport | null> {
  if (s.weights.kind === 'synthetic' && !s.compareWeights) return null;
  const ids = job.pieces.flatMap((p) => p.ids);
  const a = weightValues(job.source, ids);
  const primary = { label: job.source.label, records: a.map((w) => w.record) };
  if (!s.compareWeights) return { primary };
  const other = openSource(s.compareWeights);
  const b = weightValues(other, ids);
  const diffs = diffWeights(a, b);
  const planB = planRun(s, other);
  const layerB = uploadLayer(rt, other, job.heads, job.tokens, s.precision.ropeAngles);
  try {
    const across = await runAcross(rt, {
      a: { layer: job.layer, pieces: job.pieces },
      b: { layer: layerB, pieces: planB.pieces },
      kernels: job.kernels,
      numSlots: job.numSlots,
    });
    const comparison = compareWeights(diffs, across);
    return {
      primary,
      compare: { label: other.label, records: b.map((w) => w.record) },
      heads: job.heads,
      comparison,
      ...(s.expect?.weights ? { expectation: checkWeightsExpectation(s.expect.weights, comparison) } : {}),
    };
  } finally {
    disposeLayer(layerB);
  }
}
