/** W_UK absorbed into the MQA query (ql_nope, mqa_q), and the probe-only k_nope ≡ kv_c_normed·W_UK_T[h]ᵀ. */
import * as tf from '@tensorflow/tfjs-core';
import type { AbsorbedWeights } from './fault-kernels';
import { headMatmul } from './head-matmul';
import type { DeviceLayer } from './layer';
import type { PathStep } from './path-step';
import { linear } from './shared';

/** The absorbed query mqa_q [T,N,L+R] = [q_nope·W_UK_T[h] | q_pe], ql_nope rounded to the path's dtype (fp16 under absorbed-fp16). */
export function absorbQuery(s: PathStep, q_nope: tf.Tensor3D, q_pe: tf.Tensor3D, W_UK_T: tf.Tensor3D): tf.Tensor3D {
  const { faults, probe, rd } = s;
  const ql_full = headMatmul(s.layer, q_nope, W_UK_T); // [T,N,L] in fp32
  const ql_nope = probe.tap(
    'ql_nope',
    faults.has('absorbed-fp16') ? rd.as(ql_full, 'float16', probe, 'ql_nope') : rd.at('ql_nope', ql_full, probe),
  ); // [T,N,L]
  return probe.tap('mqa_q', tf.concat([ql_nope, q_pe], -1)); // [T,N,L+R]
}

/**
 * The probe-only k_nope = kv_c_normed·W_UK_T[h]ᵀ [T,N,P]: per head through the device's GEMM with
 * W_UK [N,L,P] transposed once (kept while W_UK_T is the absorbed weight), else one product with
 * W_UK_T's rows as an [N·P, L] linear.
 */
export class ProbeKNope {
  /** W_UK [N,L,P] for a device with a per-head GEMM, made on first use. */
  private W_UK: tf.Tensor3D | undefined;

  constructor(
    private readonly layer: DeviceLayer,
    private readonly absorbed: AbsorbedWeights,
  ) {}

  of(kv_c_normed: tf.Tensor2D, W_UK_T: tf.Tensor3D): tf.Tensor3D {
    const [N, P, L] = W_UK_T.shape;
    if (this.layer.headProduct) {
      // a replayed W_UK_T
      if (W_UK_T !== this.absorbed.W_UK_T) return headMatmul(this.layer, kv_c_normed, tf.transpose(W_UK_T, [0, 2, 1]) as tf.Tensor3D);
      this.W_UK ??= tf.keep(tf.transpose(W_UK_T, [0, 2, 1]) as tf.Tensor3D); // [N,L,P]
      return headMatmul(this.layer, kv_c_normed, this.W_UK);
    }
    const W_UK_rows = {
      w: tf.reshape(W_UK_T, [N * P, L]) as tf.Tensor2D,
      layout: 'out_in' as const,
      product: this.layer.linear.kv_b_proj.product,
    };
    return tf.reshape(linear(kv_c_normed, W_UK_rows), [kv_c_normed.shape[0], N, P]); // [T,N,P]
  }

  dispose(): void {
    this.W_UK?.dispose();
  }
}
