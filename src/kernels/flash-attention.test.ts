import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import { testRuntime } from '../test-utils/runtime';
import type { FlashLimits, FlashRequest } from './flash-attention';
import { flashAttention, planFlash } from './flash-attention';
import { DEFAULT_TILES, flashShader, flashShaderKey, tileBytes, tilesProblem } from './flash-wgsl';

/**
 * The kernel's checks, shader key and tile plan, without a GPU (Dawn cannot load under jest). The
 * kernel's numbers against the unfused attend run in test/e2e/flash-attention.test.ts on webgpu.
 */

// WebGPU's default limits, with the lavapipe binding size (128 MiB).
const LIMITS: FlashLimits = { maxStorageBufferBindingSize: 2 ** 27, maxComputeWorkgroupStorageSize: 16384, maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupsPerDimension: 65535 };

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

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof MlaDiffError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('planFlash', () => {
  it('plans the MHA form (per-head K, V) and the MQA form (one latent head, V = its first 512 columns)', () => {
    expect(withTensors({ q: [64, 40, 256], k: [64, 50, 256], v: [64, 50, 256] }, (r) => planFlash(r, LIMITS)))
      .toEqual({ A: 64, B: 40, S: 50, D: 256, E: 256, vFromK: false, tiles: DEFAULT_TILES });
    expect(withTensors({ q: [1, 64 * 8, 576], k: [1, 100, 576], v: null }, (r) => planFlash(r, LIMITS)))
      .toEqual({ A: 1, B: 512, S: 100, D: 576, E: 512, vFromK: true, tiles: DEFAULT_TILES });
  });

  it.each([
    ['k width differs from q', { q: [2, 4, 24], k: [2, 4, 16], v: [2, 4, 16] }, {}],
    ['k heads neither A nor 1', { q: [4, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, {}],
    ['v keys differ from k', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 5, 16] }, {}],
    ['v null and E wider than D', { q: [1, 4, 24], k: [1, 4, 24], v: null }, {}],
    ['non-integer rowsPerToken', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { mask: { offset: 0, rowsPerToken: 0.5 } }],
    ['infinite scale', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { scale: Infinity }],
    ['threads not dividing the tile', { q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, { tiles: { ...DEFAULT_TILES, threads: 96 } }],
  ])('rejects %s: invalid-value', (_, shapes, extra) => {
    expect(withTensors(shapes, (r) => codeOf(() => planFlash({ ...r, ...extra }, LIMITS)))).toBe('invalid-value');
  });

  it('rejects an input or output over the binding limit, too many row blocks, tiles over the workgroup limits: device-limit', () => {
    const small = { ...LIMITS, maxStorageBufferBindingSize: 4 * 1000 };
    expect(withTensors({ q: [2, 10, 64], k: [1, 2, 64], v: [1, 2, 16] }, (r) => codeOf(() => planFlash(r, small)))).toBe('device-limit'); // q: 1280 floats
    expect(withTensors({ q: [1, 2, 16], k: [1, 100, 16], v: [1, 100, 16] }, (r) => codeOf(() => planFlash(r, small)))).toBe('device-limit'); // k: 1600
    expect(withTensors({ q: [1, 40, 16], k: [1, 2, 16], v: [1, 2, 16] }, (r) => codeOf(() => planFlash(r, { ...small, maxComputeWorkgroupsPerDimension: 2 })))).toBe('device-limit');
    expect(withTensors({ q: [1, 4, 16], k: [1, 4, 16], v: [1, 4, 16] }, (r) => codeOf(() => planFlash(r, { ...LIMITS, maxComputeWorkgroupStorageSize: 4096 })))).toBe('device-limit');
  });
});

describe('flashAttention', () => {
  it('runs only on webgpu: device-unavailable elsewhere', () => {
    expect(withTensors({ q: [2, 4, 24], k: [2, 4, 24], v: [2, 4, 16] }, (r) => codeOf(() => flashAttention(tf, r)))).toBe('device-unavailable');
  });
});

describe('the WGSL', () => {
  it('bakes every compile-time constant into the shader key and the source', () => {
    expect(flashShaderKey(DEFAULT_TILES, 576, 512, true)).toBe('mlaFlashAttn_r16_k32_c32_w256_d576_e512_vk');
    const src = flashShader(DEFAULT_TILES, 576, 512, true);
    expect(src).toContain('const FA_D = 576;');
    expect(src).toContain('K[kBase + s * FA_D + ee]'); // V read out of K
    expect(src).not.toMatch(/\bV\[/);
    expect(flashShader(DEFAULT_TILES, 256, 256, false)).toContain('V[vBase + s * FA_E + ee]');
  });

  it('the default tiles fit WebGPU default limits (16 KiB workgroup memory, 256 threads)', () => {
    expect(tilesProblem(DEFAULT_TILES)).toBeNull();
    expect(tileBytes(DEFAULT_TILES)).toBeLessThanOrEqual(16384);
    expect(DEFAULT_TILES.threads).toBeLessThanOrEqual(256);
  });
});
