import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../runtime';
import { testRuntime } from '../../test-utils/runtime';
import { mulberry32, gaussian } from '../../test-utils/codec-samples';
import type { Attended, EmptyLse } from './attention';
import { attend } from './attention';
import type { Batched } from './matmul';
import { matmul } from './matmul';
import type { FlashArgs, FlashMask } from './tiled-attention';
import { queryBlockRows, tiledAttention } from './tiled-attention';

const randn = (shape: number[], seed: number): tf.Tensor3D => {
  const g = gaussian(mulberry32(seed));
  return tf.tensor3d(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, g), shape as [number, number, number]);
};

/** The unfused oracle: full [A,B,S] logits, the mask as an additive bias, one attend. */
function unfused(a: FlashArgs, batched: Batched): Attended {
  const [, B] = a.q.shape;
  const S = a.k.shape[1];
  const E = a.v ? a.v.shape[2] : a.vDim!;
  const v = a.v ?? (tf.slice(a.k, [0, 0, 0], [a.k.shape[0], S, E]) as tf.Tensor3D);
  const logits = tf.mul(matmul(a.q, a.k, true, batched), a.scale) as tf.Tensor3D; // [A,B,S]
  if (!a.mask) return attend(logits, v, batched, false, a.emptyLse);
  const m = a.mask;
  const bias = tf.tensor2d(
    Float32Array.from({ length: B * S }, (_, i) => (i % S <= Math.floor(Math.floor(i / S) / m.rowsPerToken) + m.offset ? 0 : -Infinity)),
    [B, S],
  );
  return attend(tf.add(logits, tf.expandDims(bias, 0)) as tf.Tensor3D, v, batched, true, a.emptyLse);
}

async function expectSame(x: Attended, y: Attended): Promise<void> {
  expect(x.out.shape).toEqual(y.out.shape);
  expect(x.lse.shape).toEqual(y.lse.shape);
  const [xo, yo, xl, yl, xm, ym] = await Promise.all([x.out, y.out, x.lse, y.lse, x.max, y.max].map((t) => t.data()));
  for (let i = 0; i < xo!.length; i++) expect(Math.abs(xo![i]! - yo![i]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(yo![i]!)));
  for (const [p, q] of [
    [xl!, yl!],
    [xm!, ym!],
  ] as const) {
    for (let i = 0; i < p.length; i++) {
      if (!Number.isFinite(q[i]!)) expect(p[i]).toBe(q[i]);
      else expect(Math.abs(p[i]! - q[i]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(q[i]!)));
    }
  }
}

interface Case {
  A: number;
  Ak: number;
  B: number;
  S: number;
  D: number;
  E: number;
  mask: FlashMask | null;
  vNull?: boolean;
  emptyLse?: EmptyLse;
  tile?: number;
}

describe.each(['wasm', 'cpu'] as const)('tiledAttention ≡ unfused attend on %s', (device) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime(device);
  });
  const batched = (): Batched => (device === 'wasm' ? 'per-batch' : 'native');

  it.each<[string, Case]>([
    ['T=1, causal', { A: 3, Ak: 3, B: 1, S: 1, D: 8, E: 4, mask: { offset: 0, rowsPerToken: 1 } }],
    [
      'T not a multiple of the block, causal (MHA form)',
      { A: 4, Ak: 4, B: 13, S: 13, D: 8, E: 6, mask: { offset: 0, rowsPerToken: 1 }, tile: 4 * 13 * 3 },
    ],
    [
      'causal offset (context before the queries)',
      { A: 2, Ak: 2, B: 5, S: 12, D: 8, E: 8, mask: { offset: 7, rowsPerToken: 1 }, tile: 2 * 12 * 2 },
    ],
    ['non-causal, several blocks', { A: 2, Ak: 2, B: 9, S: 7, D: 8, E: 5, mask: null, tile: 2 * 7 * 4 }],
    [
      'MQA form: heads packed as rows, one KV head, V = K[..., :E]',
      { A: 1, Ak: 1, B: 5 * 4, S: 9, D: 10, E: 6, mask: { offset: 4, rowsPerToken: 4 }, vNull: true, tile: 9 * 4 * 2 },
    ],
    [
      'fully masked rows (a split past the first tokens)',
      { A: 1, Ak: 1, B: 6 * 2, S: 5, D: 8, E: 4, mask: { offset: -3, rowsPerToken: 2 }, tile: 5 * 2 * 2 },
    ],
    ['one block (tile larger than the scores)', { A: 2, Ak: 2, B: 6, S: 6, D: 8, E: 8, mask: { offset: 0, rowsPerToken: 1 } }],
  ])('%s', async (_name, c) => {
    const before = tf.memory().numTensors;
    const q = randn([c.A, c.B, c.D], 1);
    const k = randn([c.Ak, c.S, c.D], 2);
    const v = c.vNull ? null : randn([c.Ak, c.S, c.E], 3);
    const args: FlashArgs = { q, k, v, vDim: c.E, scale: c.D ** -0.5, mask: c.mask, emptyLse: c.emptyLse ?? '-inf' };
    const tiled = tiledAttention(tf, args, { batched: batched(), tileElements: c.tile });
    const ref = tf.tidy(() => ({ ...unfused(args, batched()) })) as unknown as Attended;
    await expectSame(tiled, ref);
    tf.dispose([q, k, ...(v ? [v] : []), tiled.out, tiled.lse, tiled.max, ref.out, ref.lse, ref.max]);
    expect(rt.tf.memory().numTensors).toBe(before);
  });

  it.each<EmptyLse>(['-inf', '+inf'])('S = 0 gives out 0 and lse %s, as attend', async (emptyLse) => {
    const before = tf.memory().numTensors;
    const [q, k, v] = [randn([2, 3, 4], 1), tf.zeros([2, 0, 4]) as tf.Tensor3D, tf.zeros([2, 0, 5]) as tf.Tensor3D];
    const r = tiledAttention(tf, { q, k, v, scale: 0.5, mask: null, emptyLse }, { batched: batched() });
    expect(r.out.shape).toEqual([2, 3, 5]);
    expect(Array.from(await r.out.data()).every((x) => x === 0)).toBe(true);
    expect(Array.from(await r.lse.data())).toEqual(Array(6).fill(emptyLse === '+inf' ? Infinity : -Infinity));
    tf.dispose([q, k, v, r.out, r.lse, r.max]);
    expect(rt.tf.memory().numTensors).toBe(before);
  });
});

describe('queryBlockRows', () => {
  it('keeps whole tokens, at least one, and the tile within budget', () => {
    expect(queryBlockRows(64, 2048, 2048, 1, 1 << 23)).toBe(64);
    expect(queryBlockRows(1, 2048 * 64, 2048, 64, 1 << 23)).toBe(64 * 64);
    expect(queryBlockRows(64, 10, 1 << 20, 1, 1)).toBe(1);
    expect(queryBlockRows(1, 12, 5, 4, 1)).toBe(4);
    expect(queryBlockRows(2, 3, 4, 1, 1 << 23)).toBe(3);
  });
});
