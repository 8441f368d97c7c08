import * as tf from '@tensorflow/tfjs-core';
import type * as tfc from '@tensorflow/tfjs-core';
import type { Runtime } from './runtime';
import { hostFilled, hostRound } from './host-tensors';
import { tiledAttention } from './kernels/tiled-attention';

/** The one method of tfjs-backend-cpu's MathBackendCPU used here. */
interface CpuBackend {
  readSync(dataId: object): unknown;
}

/** tf.backend() as the cpu backend: the one place it is cast. Call it with cpu the backend. */
function cpuBackend(tf: typeof tfc): CpuBackend {
  return tf.backend() as unknown as CpuBackend;
}

/** tfjs-backend-cpu: plain JavaScript kernels, the slowest and most portable device. */
export async function createCpuRuntime(reason: string): Promise<Runtime> {
  require('@tensorflow/tfjs-backend-cpu');
  await tf.setBackend('cpu');
  await tf.ready();
  const backend = cpuBackend(tf);
  return {
    tf,
    device: { name: 'cpu', backend: tf.getBackend(), description: 'cpu: tfjs-backend-cpu (JavaScript)', software: false, reason },
    maxTensorBytes: 2 ** 31 - 1,
    linearPlan: () => ({ layout: 'in_out', product: 'direct', batched: 'native' }),
    // The cpu backend keeps the array it is given: no copy.
    makeFilled: (shape, fill) => hostFilled(tf, shape, fill),
    // The cpu backend's readSync hands back the array it stores.
    hostView: (t) => {
      const v = t.dtype === 'float32' ? backend.readSync(t.dataId) : null;
      return v instanceof Float32Array ? v : null;
    },
    round: (x, dtype) => hostRound(tf, x, dtype, (t) => t.dataSync() as Float32Array),
    attention: (req) =>
      tiledAttention(
        tf,
        { q: req.q, k: req.k, v: req.v, vDim: req.e, scale: req.scale, mask: req.mask, emptyLse: req.emptyLse },
        { batched: 'native' },
      ),
  };
}
