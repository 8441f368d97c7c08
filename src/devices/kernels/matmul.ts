import * as tf from '@tensorflow/tfjs-core';

/**
 * How a device runs matrix products with a batch axis or a transposed operand. tfjs-backend-wasm
 * sends only untransposed batch-1 products to XNNPACK and runs everything else in a scalar loop
 * (7× slower for a per-head [512,256]·[256,2048]), so there each batch entry becomes its own
 * 2-D product with its operand transposed up front; elsewhere the batched kernel is used as is.
 */
export type Batched = 'native' | 'per-batch';

/** a·b (or a·bᵀ) for [B,M,K]·[B|1,K,N] or [M,K]·[K,N]; b with batch 1 broadcasts. */
export function matmul<T extends tf.Tensor2D | tf.Tensor3D>(a: T, b: tf.Tensor2D | tf.Tensor3D, transposeB: boolean, mode: Batched): T {
  if (mode === 'native') return tf.matMul(a, b, false, transposeB) as T;
  const bt = transposeB ? tf.transpose(b, b.rank === 3 ? [0, 2, 1] : [1, 0]) : b; // [B,K,N] / [K,N]
  if (a.rank === 2) return tf.matMul(a, bt.rank === 3 ? tf.squeeze(bt, [0]) : bt) as T;
  const bb = bt.rank === 3 ? (bt.shape[0] as number) : 1;
  if (a.shape[0] === 1 && bb === 1) return tf.matMul(a, bt.rank === 3 ? bt : tf.expandDims(bt, 0)) as T;
  const B = Math.max(a.shape[0] as number, bb);
  const each = (x: tf.Tensor, n: number) => (n === 1 ? Array.from({ length: B }, () => tf.squeeze(x, [0])) : tf.unstack(x));
  const as = each(a, a.shape[0] as number);
  const bs = bt.rank === 2 ? as.map(() => bt) : each(bt, bb);
  return tf.stack(as.map((x, i) => tf.matMul(x as tf.Tensor2D, bs[i] as tf.Tensor2D))) as T;
}
