import * as tf from '@tensorflow/tfjs-core';
import type { DeviceLayer } from './layer';
import { matmul } from '../devices/kernels/matmul';

/**
 * out[t,h,:] = x[t,h,:]·w[h] for x [T,N,K], or x[t,:]·w[h] for x [T,K] shared by every head; w
 * [N,K,E] → out [T,N,E], token-major as the paths keep their tensors. Through the device's per-head
 * GEMM where it has one (webgpu: one dispatch, no transposes); else heads-major through `matmul`
 * (the batched kernel, or per-batch products on wasm) with the transposes around it.
 */
export function headMatmul(layer: DeviceLayer, x: tf.Tensor2D | tf.Tensor3D, w: tf.Tensor3D): tf.Tensor3D {
  if (layer.headProduct) return layer.headProduct(x, w); // [T,N,E]
  return tf.tidy(() => {
    const xh = x.rank === 2 ? (tf.expandDims(x, 0) as tf.Tensor3D) : (tf.transpose(x, [1, 0, 2]) as tf.Tensor3D); // [1,T,K] or [N,T,K]
    return tf.transpose(matmul(xh, w, false, layer.batched), [1, 0, 2]) as tf.Tensor3D; // [N,T,E] → [T,N,E]
  });
}
