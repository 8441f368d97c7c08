import type * as tfc from '@tensorflow/tfjs-core';
import type { KernelOptions, MlaBackend, PieceInput } from '../../paths/backend';
import type { DeviceLayer } from '../../paths/layer';
import { MhaBackend } from '../../paths/mha';
import { MqaBackend } from '../../paths/mqa';
import type { AcrossDiff } from '../compare/weights';
import type { Recording } from '../../core/probes/recorder';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import { STAGES } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { diffCaptured } from './diff';
import type { Where } from './diff';
import { RETAINED } from './reference-job';

export interface AcrossRun {
  /** The layer and pieces (embeddings included) of each source. */
  a: { layer: DeviceLayer; pieces: readonly PieceInput[] };
  b: { layer: DeviceLayer; pieces: readonly PieceInput[] };
  kernels: KernelOptions;
  numSlots: number;
}

async function record(rt: Runtime, make: () => MlaBackend<tfc.Tensor>, pieces: readonly PieceInput[]): Promise<Recording> {
  const path = make();
  const rec = new TensorRecorder(rt.tf, { retain: RETAINED, stats: rt.stats, offload: rt.retainOnHost }, (t) => rt.hostView(t));
  try {
    for (const piece of pieces) {
      if (piece.kind === 'cached') await path.fill(piece);
      else {
        rec.at(piece);
        await path.step(piece, rec);
      }
    }
    return await rec.finish(path.name);
  } finally {
    rec.dispose();
    path.dispose();
  }
}

const release = (r: Recording) => {
  for (const c of r.captured.values()) if (c.where === 'device') c.tensor.dispose();
};

/**
 * Each engine path run twice, once on each weight source, and every activation record diffed
 * between the two runs: where a loader bug in one source first moves the numbers, per path.
 */
export async function runAcross(rt: Runtime, run: AcrossRun): Promise<AcrossDiff[]> {
  const out: AcrossDiff[] = [];
  const paths = [
    ['mha', (l: DeviceLayer) => new MhaBackend(l, new Set(), run.numSlots, run.kernels)],
    ['mqa', (l: DeviceLayer) => new MqaBackend(l, new Set(), run.numSlots, run.kernels)],
  ] as const;
  for (const [name, make] of paths) {
    const ra = await record(rt, () => make(run.a.layer), run.a.pieces);
    try {
      const rb = await record(rt, () => make(run.b.layer), run.b.pieces);
      try {
        const wheres: Where[] = ra.trace.stages
          // Activations only (W covers the weights); on the MQA side not the derived k_nope / v, which
          // are probe-only products for the mha↔mqa comparison, not part of the absorbed computation.
          .filter((s) => STAGES[s.stage].kind === 'activation' && !(name === 'mqa' && STAGES[s.stage].compare === 'derived'))
          .map((s) => ({ step: s.step, request: s.request, stage: s.stage, ...(s.chunk === undefined ? {} : { chunk: s.chunk }) }))
          .sort(executionOrder(run.a.pieces));
        for (const w of wheres) {
          const ca = ra.captured.get(recordKey(w));
          const cb = rb.captured.get(recordKey(w));
          if (!ca || !cb) continue;
          const d = await diffCaptured(rt.tf, (t) => rt.hostView(t), w, [name, ca], [name, cb], rt.diff);
          out.push({ ...w, path: name, relErr: d.shapeMatch ? d.relErr : null });
        }
      } finally {
        release(rb);
      }
    } finally {
      release(ra);
    }
  }
  return out;
}
