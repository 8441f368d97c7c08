import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import type { Runtime } from './runtime';
import { hostFilled, hostRound } from './host-tensors';
import { installCommand, missingPackages } from './install-hints';

/** Loads @tensorflow/tfjs-node-gpu (optional: libtensorflow + CUDA 11); throws when it cannot. */
export function loadTfjsNode(): void {
  if (missingPackages('tensorflow').length) {
    throw new MlaDiffError(
      'device-unavailable',
      '@tensorflow/tfjs-node-gpu is not installed: it is optional, not installed with mla-diff',
      { field: '--device' },
      `${installCommand('tensorflow')} (it downloads libtensorflow; CUDA 11 for a GPU), or use --device webgpu or wasm`,
    );
  }
  try {
    require('@tensorflow/tfjs-node-gpu');
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new MlaDiffError(
      'device-unavailable',
      `@tensorflow/tfjs-node-gpu did not load: ${why}`,
      { field: '--device' },
      'it needs libtensorflow (downloaded at install) and CUDA 11; use --device webgpu or wasm',
    );
  }
}

/** tfjs-node-gpu: TensorFlow's C library, on CUDA when it finds it. */
export async function createTensorflowRuntime(reason: string): Promise<Runtime> {
  loadTfjsNode();
  if (!(await tf.setBackend('tensorflow'))) {
    throw new MlaDiffError('device-unavailable', 'the tensorflow backend failed to initialise', { field: '--device' });
  }
  await tf.ready();
  return {
    tf,
    device: { name: 'tensorflow', backend: tf.getBackend(), description: 'tensorflow: @tensorflow/tfjs-node-gpu', software: false, reason },
    maxTensorBytes: Number.MAX_SAFE_INTEGER,
    linearPlan: () => ({ layout: 'in_out', product: 'direct', batched: 'native' }),
    makeFilled: (shape, fill) => hostFilled(tf, shape, fill),
    hostView: () => null,
    round: (x, dtype) => hostRound(tf, x, dtype, (t) => t.dataSync() as Float32Array),
  };
}
