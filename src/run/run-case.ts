import type { LayerInput, MlaBackend } from '../backends/backend';
import type { DeviceLayer } from '../backends/layer';
import { MhaBackend } from '../backends/mha';
import { MqaBackend } from '../backends/mqa';
import { compareCase } from '../compare/compare';
import { checkExpectation } from '../compare/expect';
import { softmaxScale } from '../model/config';
import type * as tfc from '@tensorflow/tfjs-core';
import type { Recording } from '../probes/recorder';
import { TensorRecorder } from '../probes/recorder';
import type { PathName } from '../probes/stages';
import { STAGE_NAMES } from '../probes/stages';
import type { Runtime } from '../runtime/device';
import type { CaseSpec, Scenario } from '../scenario/scenario';
import type { PairDiff } from './diff';
import { diffCaptured } from './diff';
import type { ReferenceCase } from './reference-job';
import { RETAINED } from './reference-job';
import type { CaseResult, CaseTrace } from './trace';

const PAIRS: [PathName, PathName][] = [['mha', 'mqa'], ['mha', 'reference'], ['mqa', 'reference']];

async function record(rt: Runtime, path: MlaBackend<tfc.Tensor>, input: LayerInput): Promise<Recording> {
  const rec = new TensorRecorder(rt.tf, { retain: RETAINED }, (t) => rt.hostView(t));
  try {
    await path.forward(input, rec);
    return await rec.finish(path.name);
  } catch (e) {
    rec.dispose();
    throw e;
  } finally {
    path.dispose();
  }
}

/** Every pair of paths that captured a stage, in pipeline order. */
async function diffAll(rt: Runtime, rec: Partial<Record<PathName, Recording>>): Promise<PairDiff[]> {
  const diffs: PairDiff[] = [];
  for (const stage of STAGE_NAMES) {
    for (const [a, b] of PAIRS) {
      const ra = rec[a];
      const rb = rec[b];
      if (!ra || !rb) continue;
      const ca = ra.captured.get(stage);
      const cb = rb.captured.get(stage);
      if (ca && cb) diffs.push(await diffCaptured(rt.tf, (t) => rt.hostView(t), stage, [a, ca], [b, cb]));
    }
  }
  return diffs;
}

function release(rec: Partial<Record<PathName, Recording>>): void {
  for (const r of Object.values(rec)) {
    for (const c of r?.captured.values() ?? []) if (c.where === 'device') c.tensor.dispose();
  }
}

/** Runs both engine paths of one case on the device, joins the reference, measures and judges. */
export async function runCase(
  rt: Runtime, s: Scenario, spec: CaseSpec, layer: DeviceLayer, input: LayerInput,
  reference: Promise<ReferenceCase> | null, notes: string[],
): Promise<CaseResult> {
  const rec: Partial<Record<PathName, Recording>> = {};
  const seconds: CaseTrace['seconds'] = {};
  try {
    for (const path of [new MhaBackend(layer, s.faults.mha), new MqaBackend(layer, s.faults.mqa)]) {
      const t0 = performance.now();
      rec[path.name] = await record(rt, path, input);
      seconds[path.name] = (performance.now() - t0) / 1000;
    }
    if (reference) {
      const r = await reference;
      rec.reference = { trace: r.trace, captured: new Map(r.captured.map((c) => [c.stage, { where: 'host', data: c.data, shape: c.shape, layout: c.layout }])) };
    }
    const trace: CaseTrace = {
      name: spec.name, label: spec.label, heads: spec.heads, totalHeads: s.config.num_attention_heads,
      tokens: input.positions.length,
      paths: Object.fromEntries(Object.entries(rec).map(([p, r]) => [p, r!.trace])),
      diffs: await diffAll(rt, rec),
      expectedSoftmaxScale: softmaxScale(s.config), seconds, notes,
    };
    const comparison = compareCase(trace, s.tolerances);
    return { trace, comparison, ...(s.expect ? { expectation: checkExpectation(s.expect, comparison) } : {}) };
  } finally {
    release(rec);
  }
}
