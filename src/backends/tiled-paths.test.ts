import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../runtime/device';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../model/presets';
import { SyntheticWeights } from '../weights/synthetic';
import { pathOutputs, prefillPiece, relL2 } from '../test-utils/pieces';
import type { MlaBackend } from './backend';
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
const id = (i: number) => 1 + (i * 7) % 50;
const pieces = () => [prefillPiece(source, 0, 11, [], id), prefillPiece(source, 11, 5, [[0, 6], [6, 11]], id)];
const outputs = (make: () => MlaBackend<tf.Tensor>, recorded: boolean) => pathOutputs(tf, make(), pieces(), recorded);

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
    layer.rope?.clear(); // the layer's rotary tables (kept per positions array until the layer goes)
    expect(rt.tf.memory().numTensors).toBe(before);
    for (const [k, o] of off.entries()) expect(relL2(o, on[k]!)).toBeLessThan(1e-6);
  });
});
