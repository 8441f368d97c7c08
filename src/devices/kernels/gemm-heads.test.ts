import * as tf from '@tensorflow/tfjs-core';
import { thrownCode } from '../../test-utils/errors';
import { testRuntime } from '../../test-utils/runtime';
import type { GemmLimits } from './gemm-plan';
import { gemmProgram } from './gemm';
import { gemmHeads, planGemmHeads } from './gemm-heads';
import { DEFAULT_GEMM_TILES, MID_GEMM_TILES } from './gemm-wgsl';

/**
 * The per-head GEMM's layouts and checks without a GPU; its numbers against tf.matMul on the
 * transposed operands run in test/e2e/gemm.test.ts (test/e2e/checks/gemm-check.mjs) on webgpu.
 */
const LIMITS: GemmLimits = {
  maxStorageBufferBindingSize: 2 ** 27,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupsPerDimension: 65535,
};
const op = (shape: number[], dtype: tf.DataType = 'float32') => ({ shape, dtype });

beforeAll(async () => {
  await testRuntime('cpu');
});

describe('planGemmHeads', () => {
  it('reads x [T,N,K] per head and writes [T,N,E] token-major (the W_UK absorption at GLM-5 sizes)', () => {
    // the H200's binding limit
    const p = planGemmHeads(op([2048, 64, 192]), op([64, 192, 512]), { ...LIMITS, maxStorageBufferBindingSize: 2 ** 31 - 4 });
    expect(p).toMatchObject({
      batch: 64,
      M: 2048,
      N: 512,
      K: 192,
      tiles: DEFAULT_GEMM_TILES,
      vec: { a: true, b: true },
      dispatch: [4, 32, 64],
      outputShape: [2048, 64, 512],
      strides: { lda: 64 * 192, aBatch: 192, aOff: 0, ldb: 512, bBatch: 192 * 512, ldc: 64 * 512, cBatch: 512 },
    });
    expect(gemmProgram(p).outputShape).toEqual([2048, 64, 512]);
  });

  it('shares a 2-D x [T,K] across heads (kv_c_normed·W_UV) and reads scalars where a stride is not a multiple of 4', () => {
    expect(planGemmHeads(op([7, 512]), op([16, 512, 256]), LIMITS)).toMatchObject({
      strides: { lda: 512, aBatch: 0, ldc: 16 * 256, cBatch: 256 },
      vec: { a: true, b: true },
    });
    expect(planGemmHeads(op([5, 3, 6]), op([3, 6, 10]), LIMITS)).toMatchObject({
      vec: { a: false, b: false },
      tiles: MID_GEMM_TILES,
      dispatch: [1, 1, 3],
    });
  });

  it.each([
    ['x of rank 4', [2, 2, 2, 2], [2, 2, 2]],
    ['w of rank 2', [4, 2, 8], [8, 4]],
    ['head count mismatch', [4, 3, 8], [2, 8, 4]],
    ['K mismatch', [4, 2, 8], [2, 7, 4]],
    ['shared x with the wrong K', [4, 9], [2, 8, 4]],
  ])('rejects %s as invalid-value', (_name, x, w) => {
    expect(thrownCode(() => planGemmHeads(op(x), op(w), LIMITS))).toBe('invalid-value');
  });

  it('rejects an int32 operand as invalid-value and an output over the binding limit as device-limit', () => {
    expect(thrownCode(() => planGemmHeads(op([4, 2, 8], 'int32'), op([2, 8, 4]), LIMITS))).toBe('invalid-value');
    expect(thrownCode(() => planGemmHeads(op([2 ** 14, 64, 4]), op([64, 4, 64]), LIMITS))).toBe('device-limit');
  });

  it('runs only on webgpu (device-unavailable elsewhere), leaking nothing', () => {
    const before = tf.memory().numTensors;
    const [x, w] = [tf.zeros([3, 2, 4]) as tf.Tensor3D, tf.zeros([2, 4, 5]) as tf.Tensor3D]; // [T,N,K], [N,K,E]
    expect(thrownCode(() => gemmHeads(tf, x, w))).toBe('device-unavailable');
    tf.dispose([x, w]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
