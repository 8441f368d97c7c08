import type * as tfc from '@tensorflow/tfjs-core';
import type { StorageDtype } from '../core/precision/formats';
import { roundArray } from '../core/precision/formats';

/** Runtime.makeFilled for backends that copy host data in: fill a host array, hand it to tf.tensor. */
export function hostFilled(tf: typeof tfc, shape: number[], fill: (dst: Float32Array) => void): tfc.Tensor {
  const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
  fill(values);
  return tf.tensor(values, shape, 'float32');
}

/** Runtime.round for backends whose float32 data can be read synchronously: round on the host, upload. */
export function hostRound(tf: typeof tfc, x: tfc.Tensor, dtype: StorageDtype, read: (t: tfc.Tensor) => Float32Array): tfc.Tensor {
  return tf.tensor(roundArray(read(x), dtype), x.shape, 'float32');
}
