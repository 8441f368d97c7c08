import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../runtime/device';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../model/presets';
import { SyntheticWeights } from '../weights/synthetic';
import { NULL_PROBE } from '../probes/probe';
import { TensorRecorder } from '../probes/recorder';
import type { MlaBackend, PieceInput } from './backend';
import { DEFAULT_KERNELS } from './backend';
import { ColdBackend } from './cold';
import type { DeviceLayer } from './layer';
import { disposeLayer, uploadLayer } from './layer';
import { MhaBackend } from './mha';
import { MqaBackend } from './mqa';

/**
 * Each path with nothing recorded (attention in query blocks) against the same path with every
 * stage recorded (the unfused [N,T,S] logits): o_proj_out to fp32 precision, over a prefill and a
 * second piece that attends to it (causal offset, MHA context chunks, MQA KV splits).
 */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 3);
const slots = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
function piece(start: number, count: number, chunks: [number, number][]): PieceInput {
  const ids = Array.from({ length: count }, (_, i) => 1 + ((start + i) * 7) % 50);
  return {
    step: start ? 1 : 0, request: 'r', kind: 'prefill', route: 'mha', start, ids, positions: ids.map((_, i) => start + i),
    embeddings: source.embeddings(ids), slots: slots(start, start + count), historySlots: slots(0, start + count),
    chunks, chunkSlots: chunks.map(([a, b]) => slots(a, b)),
  };
}

async function outputs(make: () => MlaBackend<tf.Tensor>, recorded: boolean): Promise<Float32Array[]> {
  const path = make();
  const outs: Float32Array[] = [];
  for (const p of [piece(0, 11, []), piece(11, 5, [[0, 6], [6, 11]])]) {
    const rec = recorded ? new TensorRecorder(tf, {}, () => null) : null;
    rec?.at(p);
    outs.push(Float32Array.from((await path.step(p, rec ?? NULL_PROBE, true))!));
    if (rec) for (const c of (await rec.finish(path.name)).captured.values()) if (c.where === 'device') c.tensor.dispose();
  }
  path.dispose();
  return outs;
}

describe.each(['wasm', 'cpu'] as const)('tiled attention inside the paths on %s', (device) => {
  let rt: Runtime;
  let layer: DeviceLayer;
  beforeAll(async () => {
    rt = await testRuntime(device);
    layer = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, 16);
  });
  afterAll(() => disposeLayer(layer));

  it.each<[string, () => MlaBackend<tf.Tensor>]>([
    ['mha', () => new MhaBackend(layer, new Set(), 16, DEFAULT_KERNELS)],
    ['mqa, 3 KV splits', () => new MqaBackend(layer, new Set(), 16, { ...DEFAULT_KERNELS, kvSplits: 3 })],
    ['cold', () => new ColdBackend(layer)],
  ])('%s: probes off ≡ every stage recorded', async (_name, make) => {
    const before = rt.tf.memory().numTensors;
    const [off, on] = [await outputs(make, false), await outputs(make, true)];
    expect(rt.tf.memory().numTensors).toBe(before);
    for (const [k, o] of off.entries()) {
      const want = on[k]!;
      let [d, n] = [0, 0];
      for (let i = 0; i < o.length; i++) { d += (o[i]! - want[i]!) ** 2; n += want[i]! ** 2; }
      expect(Math.sqrt(d / n)).toBeLessThan(1e-6);
    }
  });
});
