import * as tf from '@tensorflow/tfjs-core';
import { thrownCode } from '../../test-utils/errors';
import { testRuntime } from '../../test-utils/runtime';
import type { FlashRequest } from './flash-attention';
import { flashAttention, planFlash } from './flash-attention';
import { defaultTiles } from './flash-wgsl';
import { splitKv } from './flash-tiles';
import { H200_MHA, LIMITS } from './test-utils/flash-limits';

/**
 * The kernel's checks and tile plan, without a GPU (Dawn cannot load under jest); its WGSL is tested in
 * flash-attention-wgsl.test.ts. The kernel's numbers against the unfused attend run in
 * test/e2e/flash-attention.test.ts on webgpu.
 */

beforeAll(async () => {
  await testRuntime('cpu'); // tfjs-core's one engine: `tf` below runs on it
});

type Shape3 = [number, number, number];

/** Runs `fn` on tensors of the given shapes (zeros), disposing them; asserts no leak. */
function withTensors<T>(shapes: { q: number[]; k: number[]; v: number[] | null }, fn: (r: FlashRequest) => T): T {
  const before = tf.memory().numTensors;
  const q = tf.zeros(shapes.q as Shape3) as tf.Tensor3D; // [A,B,D]
  const k = tf.zeros(shapes.k as Shape3) as tf.Tensor3D; // [A|1,S,D]
  const v = shapes.v ? (tf.zeros(shapes.v as Shape3) as tf.Tensor3D) : null; // [A|1,S,E]
  try {
    return fn({ q, k, v, valueWidth: shapes.v ? undefined : 512, scale: 0.1, mask: { offset: 0, rowsPerToken: 1 } });
  } finally {
    tf.dispose([q, k, ...(v ? [v] : [])]);
    expect(tf.memory().numTensors).toBe(before);
  }
}

describe('planFlash', () => {
  it('plans the MHA form (per-head K, V) and the MQA form (one latent head, V = its first 512 columns)', () => {
    expect(withTensors({ q: [64, 40, 256], k: [64, 50, 256], v: [64, 50, 256] }, (r) => planFlash(r, LIMITS))).toEqual({
      A: 64,
      B: 40,
      S: 50,
      D: 256,
      E: 256,
      vFromK: false,
      tokens: false,
      Ak: 64,
      Av: 64,
      tiles: defaultTiles(256, 256, LIMITS),
      splits: 1,
      splitKeys: 64,
    });
    expect(withTensors({ q: [1, 64 * 8, 576], k: [1, 100, 576], v: null }, (r) => planFlash(r, LIMITS))).toEqual({
      A: 1,
      B: 512,
      S: 100,
      D: 576,
      E: 512,
      vFromK: true,
      tokens: false,
      Ak: 1,
      Av: 1,
      tiles: defaultTiles(576, 512, LIMITS),
      splits: 1,
      splitKeys: 128,
    });
  });

  it('reads token-major q [B,A,D], k [S,A|1,D], v [S,A|1,E] with layout tokens, and checks them in that layout', () => {
    expect(
      withTensors({ q: [40, 64, 256], k: [50, 64, 256], v: [50, 64, 256] }, (r) => planFlash({ ...r, layout: 'tokens' }, LIMITS)),
    ).toMatchObject({ A: 64, B: 40, S: 50, D: 256, E: 256, tokens: true, Ak: 64, Av: 64 });
    expect(
      withTensors({ q: [20, 3, 24], k: [20, 1, 24], v: [20, 1, 16] }, (r) => planFlash({ ...r, layout: 'tokens' }, LIMITS)),
    ).toMatchObject({ A: 3, B: 20, S: 20, D: 24, E: 16, Ak: 1, Av: 1 });
    // The same tensors read head-major disagree: k would have 50 heads against q's 40.
    expect(() => withTensors({ q: [40, 64, 256], k: [50, 64, 256], v: [50, 64, 256] }, (r) => planFlash(r, LIMITS))).toThrow(
      /k has 50 heads; q has 40/,
    );
    expect(() =>
      withTensors({ q: [40, 64, 256], k: [50, 64, 256], v: [49, 64, 256] }, (r) => planFlash({ ...r, layout: 'tokens' }, LIMITS)),
    ).toThrow(/v has 49 keys; k has 50/);
  });

  it('splits the keys of a decode (few row blocks, many keys) into parts of whole key tiles; never for a prefill', () => {
    // 64 heads of one token over 32768 latent keys: a few row blocks, S / keys key tiles → parts of 4 tiles each.
    const t = defaultTiles(576, 512, LIMITS);
    const blocks = Math.ceil(64 / t.rows);
    const tiles = 32768 / t.keys;
    const per = Math.ceil(tiles / Math.min(Math.ceil(264 / blocks), Math.floor(tiles / 4))); // key tiles per part
    expect(
      withTensors({ q: [1, 64, 576], k: [1, 32768, 576], v: null }, (r) => planFlash({ ...r, valueWidth: 512 }, LIMITS)),
    ).toMatchObject({ splits: Math.ceil(tiles / per), splitKeys: per * t.keys });
    expect(Math.ceil(tiles / per)).toBeGreaterThan(16);
    expect(withTensors({ q: [64, 1024, 256], k: [64, 1024, 256], v: [64, 1024, 256] }, (r) => planFlash(r, LIMITS))).toMatchObject({
      splits: 1,
    });
    expect(splitKv(2, 700, 128, 5)).toEqual({ splits: 3, splitKeys: 256 }); // forced 5 over 6 tiles: parts of 2 tiles
    expect(splitKv(2, 100, 128)).toEqual({ splits: 1, splitKeys: 128 });
    expect(
      withTensors({ q: [1, 4, 24], k: [1, 4, 24], v: null }, (r) =>
        thrownCode(() => planFlash({ ...r, valueWidth: 16, splits: 0 }, LIMITS)),
      ),
    ).toBe('invalid-value');
  });

  it.each([
    ['k width differs from q', { q: [2, 4, 24], k: [2, 4, 16], v: [2, 4, 16] }, {}],
    ['k heads neither A nor 1', { q: [4, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, {}],
    ['v keys differ from k', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 5, 16] }, {}],
    ['v null and E wider than D', { q: [1, 4, 24], k: [1, 4, 24], v: null }, {}],
    ['non-integer rowsPerToken', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { mask: { offset: 0, rowsPerToken: 0.5 } }],
    ['infinite scale', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { scale: Infinity }],
    ['threads not matching the logit tiling', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { tiles: { ...H200_MHA, threads: 128 } }],
    [
      'scoreKeys not a multiple of 4',
      { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] },
      { tiles: { ...H200_MHA, scoreKeys: 2, threads: 512 } },
    ],
    ['valueKeys not dividing keys', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { tiles: { ...H200_MHA, valueKeys: 24 } }],
  ])('rejects %s: invalid-value', (_, shapes, extra) => {
    expect(withTensors(shapes, (r) => thrownCode(() => planFlash({ ...r, ...extra }, LIMITS)))).toBe('invalid-value');
  });

  it('rejects an input or output over the binding limit, too many row blocks, tiles over the workgroup limits: device-limit', () => {
    const small = { ...LIMITS, maxStorageBufferBindingSize: 4 * 1000 };
    expect(withTensors({ q: [2, 10, 64], k: [1, 2, 64], v: [1, 2, 16] }, (r) => thrownCode(() => planFlash(r, small)))).toBe(
      'device-limit',
    ); // q: 1280 floats
    expect(withTensors({ q: [1, 2, 16], k: [1, 100, 16], v: [1, 100, 16] }, (r) => thrownCode(() => planFlash(r, small)))).toBe(
      'device-limit',
    ); // k: 1600
    expect(
      withTensors({ q: [1, 40, 16], k: [1, 2, 16], v: [1, 2, 16] }, (r) =>
        thrownCode(() => planFlash(r, { ...small, maxComputeWorkgroupsPerDimension: 1 })),
      ),
    ).toBe('device-limit'); // 2 row blocks
    expect(
      withTensors({ q: [1, 4, 16], k: [1, 4, 16], v: [1, 4, 16] }, (r) =>
        thrownCode(() => planFlash(r, { ...LIMITS, maxComputeWorkgroupStorageSize: 4096 })),
      ),
    ).toBe('device-limit');
    expect(
      withTensors({ q: [1, 4, 16], k: [1, 4, 16], v: [1, 4, 16] }, (r) => thrownCode(() => planFlash({ ...r, tiles: H200_MHA }, LIMITS))),
    ).toBe('device-limit'); // 256 threads fit, 47 KiB do not
  });
});

describe('flashAttention', () => {
  it('runs only on webgpu: device-unavailable elsewhere', () => {
    expect(withTensors({ q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, (r) => thrownCode(() => flashAttention(tf, r)))).toBe(
      'device-unavailable',
    );
  });
});
