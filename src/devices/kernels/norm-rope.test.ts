import * as tf from '@tensorflow/tfjs-core';
import { thrownCode } from '../../test-utils/errors';
import { testRuntime } from '../../test-utils/runtime';
import { rmsNormKernel, ropeKernel } from './norm-rope';

/**
 * The kernels' guards without a GPU (Dawn cannot load under jest); their numbers against the tfjs
 * ops run in test/e2e/norm-rope.test.ts (test/e2e/checks/norm-rope-check.mjs) on webgpu.
 */
beforeAll(async () => {
  await testRuntime('cpu');
});

describe('norm-rope kernels', () => {
  it('run only on webgpu (device-unavailable elsewhere), leaking nothing', () => {
    const before = tf.memory().numTensors;
    const [x, w, cs] = [tf.ones([2, 4]), tf.ones([4]) as tf.Tensor1D, tf.ones([2, 2]) as tf.Tensor2D]; // [T,C], [C], [T,R/2]
    expect(thrownCode(() => rmsNormKernel(tf, x, w, 1e-5))).toBe('device-unavailable');
    expect(thrownCode(() => ropeKernel(tf, x, cs, cs, 'gptj'))).toBe('device-unavailable');
    tf.dispose([x, w, cs]);
    expect(tf.memory().numTensors).toBe(before);
  });

  it.each([
    ['rmsNorm: w shorter than the rows', () => rmsNormKernel(tf, tf.ones([2, 4]), tf.ones([3]) as tf.Tensor1D, 1e-5)],
    ['rmsNorm: int32 x', () => rmsNormKernel(tf, tf.ones([2, 4], 'int32'), tf.ones([4]) as tf.Tensor1D, 1e-5)],
    ['rope: odd last axis', () => ropeKernel(tf, tf.ones([2, 3]), tf.ones([2, 1]) as tf.Tensor2D, tf.ones([2, 1]) as tf.Tensor2D, 'gptj')],
    [
      'rope: cos of another length',
      () => ropeKernel(tf, tf.ones([2, 4]), tf.ones([3, 2]) as tf.Tensor2D, tf.ones([2, 2]) as tf.Tensor2D, 'neox'),
    ],
  ])('rejects %s as invalid-value before touching a device', (_name, f) => {
    tf.engine().startScope();
    expect(thrownCode(f)).toBe('invalid-value');
    tf.engine().endScope();
  });
});
