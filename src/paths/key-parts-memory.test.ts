import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../devices/runtime';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../core/model/presets';
import { SyntheticWeights } from '../core/weights/synthetic';
import { prefillPiece } from '../test-utils/pieces';
import type { MlaBackend } from './backend';
import { DEFAULT_KERNELS } from './backend';
import { ColdBackend } from './cold';
import type { DeviceLayer } from './layer';
import { disposeLayer, uploadLayer } from './layer';
import { MhaBackend } from './mha';
import { NULL_PROBE } from '../core/probes/probe';

const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 5);
const id = (i: number) => 2 + ((i * 5) % 40);

/** The most bytes of tensors alive at once over a second piece (16 tokens after 96 of context), beyond those alive before it. */
async function peakOfSecondPiece(path: MlaBackend<tf.Tensor>): Promise<number> {
  await path.step(prefillPiece(source, 0, 96, [], id), NULL_PROBE, true);
  const before = tf.memory().numBytes;
  const p = await tf.profile(async () => {
    await path.step(prefillPiece(source, 96, 16, [[0, 96]], id), NULL_PROBE, true);
    return tf.scalar(0);
  });
  path.dispose();
  tf.dispose(p.result);
  return p.peakBytes - before;
}

/**
 * foldParts: the keys in many parts need no more memory than in one (each part's up-projected K and V are smaller,
 * and at most two parts' outputs are alive). Merging all the parts at the end, as before, kept every output and
 * every merge's temporaries: the peak with 24 parts of 4 keys was 1.29× one part's on the cold path, 0.81× on MHA's.
 */
describe('key parts: memory', () => {
  let rt: Runtime;
  let layer: DeviceLayer;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
    layer = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, 16);
  });
  afterAll(() => disposeLayer(layer));

  it.each<[string, (part: number) => MlaBackend<tf.Tensor>]>([
    ['mha', (part) => new MhaBackend(layer, new Set(), 128, { ...DEFAULT_KERNELS, keyPart: part })],
    ['cold', (part) => new ColdBackend(layer, undefined, part)],
  ])('%s: 96 keys of context in 24 parts of 4 peak below the same keys in one part, no leak', async (_n, make) => {
    const before = rt.tf.memory().numTensors;
    const one = await peakOfSecondPiece(make(Infinity));
    const many = await peakOfSecondPiece(make(4));
    layer.rope?.clear();
    expect(rt.tf.memory().numTensors).toBe(before);
    expect(many).toBeLessThan(0.5 * one); // measured: 0.23× (mha), 0.24× (cold)
  });
});
