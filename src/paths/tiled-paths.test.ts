import * as tf from '@tensorflow/tfjs-core';
import { layerFixture } from '../test-utils/layer';
import { preset } from '../core/model/presets';
import { SyntheticWeights } from '../core/weights/synthetic';
import { pathOutputs, prefillPiece, relL2 } from '../test-utils/pieces';
import type { MlaBackend } from './backend';
import { DEFAULT_KERNELS } from './backend';
import { ColdBackend } from './cold';
import { MhaBackend } from './mha';
import { MqaBackend } from './mqa';

/**
 * Each path with nothing recorded (attention in query blocks) against the same path with every
 * stage recorded (the unfused [N,T,S] logits): o_proj_out to fp32 precision, over a prefill and a
 * second piece that attends to it (causal offset, MHA context chunks, MQA KV splits).
 */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 3);
const id = (i: number) => 1 + ((i * 7) % 50);
const pieces = () => [
  prefillPiece(source, 0, 11, [], id),
  prefillPiece(
    source,
    11,
    5,
    [
      [0, 6],
      [6, 11],
    ],
    id,
  ),
];
const outputs = (make: () => MlaBackend<tf.Tensor>, recorded: boolean) => pathOutputs(tf, make(), pieces(), recorded);

describe.each(['wasm', 'cpu'] as const)('tiled attention inside the paths on %s', (device) => {
  const f = layerFixture(device, source);

  it.each<[string, () => MlaBackend<tf.Tensor>]>([
    ['mha', () => new MhaBackend(f.layer, new Set(), 16, DEFAULT_KERNELS)],
    ['mqa, 3 KV splits', () => new MqaBackend(f.layer, new Set(), 16, { ...DEFAULT_KERNELS, kvSplits: 3 })],
    ['cold', () => new ColdBackend(f.layer)],
  ])('%s: probes off ≡ every stage recorded', async (_name, make) => {
    const before = f.rt.tf.memory().numTensors;
    const [off, on] = [await outputs(make, false), await outputs(make, true)];
    f.layer.rope?.clear(); // the layer's rotary tables (kept per positions array until the layer goes)
    expect(f.rt.tf.memory().numTensors).toBe(before);
    for (const [k, o] of off.entries()) expect(relL2(o, on[k]!)).toBeLessThan(1e-6);
  });
});
