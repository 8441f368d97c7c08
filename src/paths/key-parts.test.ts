import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../devices/runtime';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../core/model/presets';
import { SyntheticWeights } from '../core/weights/synthetic';
import { pathOutputs, prefillPiece, relL2 } from '../test-utils/pieces';
import type { MlaBackend } from './backend';
import { DEFAULT_KERNELS } from './backend';
import { ColdBackend } from './cold';
import type { DeviceLayer } from './layer';
import { disposeLayer, uploadLayer } from './layer';
import { MhaBackend } from './mha';
import { NULL_PROBE } from '../core/probes/probe';
import { keyPartFor, keyParts } from './key-parts';

describe('key parts', () => {
  it('cuts a key set into parts of keyPart keys and the rest; one part when it fits', () => {
    expect(keyParts(0, 4)).toEqual([[0, 0]]);
    expect(keyParts(4, 4)).toEqual([[0, 4]]);
    expect(keyParts(10, 4)).toEqual([
      [0, 4],
      [4, 8],
      [8, 10],
    ]);
    expect(keyParts(9, 4)).toEqual([
      [0, 4],
      [4, 8],
      [8, 9],
    ]);
    expect(keyParts(9, Infinity)).toEqual([[0, 9]]);
    expect(() => keyParts(3, 0)).toThrow();
  });

  it('sizes parts from the binding limit: GLM-5 on WebGPU, 64 heads × 448 floats per key (k_nope|v)', () => {
    expect(keyPartFor(2147483644, 64, 448)).toBe(18724); // [18724,64,448] floats = 2 146 … bytes ≤ 2 GiB − 4
    expect(4 * 18725 * 64 * 448).toBeGreaterThan(2147483644);
    expect(keyPartFor(Infinity, 64, 448)).toBe(Infinity);
  });
});

/** Each path over two pieces (the second with two MHA context chunks) with keys in parts of 2 or 4 against whole. */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 5);
const id = (i: number) => 2 + ((i * 5) % 40);
const pieces = () => [
  prefillPiece(source, 0, 11, [], id),
  prefillPiece(
    source,
    11,
    5,
    [
      [0, 7],
      [7, 11],
    ],
    id,
  ),
];
const outputs = (path: MlaBackend<tf.Tensor>, recorded: boolean) => pathOutputs(tf, path, pieces(), recorded);

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

describe('paths with their keys in parts', () => {
  let rt: Runtime;
  let layer: DeviceLayer;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
    layer = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, 16);
  });
  afterAll(() => disposeLayer(layer));

  it.each<[string, (part: number) => MlaBackend<tf.Tensor>, boolean]>([
    [
      'mha: context chunks of 7 and 4 keys in parts of 2',
      (part) => new MhaBackend(layer, new Set(), 16, { ...DEFAULT_KERNELS, keyPart: part }),
      false,
    ],
    ['cold: 11 then 16 keys of history in parts of 4', (part) => new ColdBackend(layer, undefined, part), false],
    ['cold, every stage recorded (its K joined for the logits)', (part) => new ColdBackend(layer, undefined, part), true],
  ])('%s ≡ the whole key set, no leak', async (_name, make, recorded) => {
    const before = rt.tf.memory().numTensors;
    const whole = await outputs(make(Infinity), recorded);
    const parts = await outputs(make(_name.startsWith('mha') ? 2 : 4), recorded);
    layer.rope?.clear(); // the layer's rotary tables (kept per positions array until the layer goes)
    expect(rt.tf.memory().numTensors).toBe(before);
    for (const [k, o] of parts.entries()) expect(relL2(o, whole[k]!)).toBeLessThan(1e-6);
  });

  /**
   * foldParts: the keys in many parts need no more memory than in one (each part's up-projected K and V are smaller,
   * and at most two parts' outputs are alive). Merging all the parts at the end, as before, kept every output and
   * every merge's temporaries: the peak with 24 parts of 4 keys was 1.29× one part's on the cold path, 0.81× on MHA's.
   */
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
