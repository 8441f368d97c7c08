import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { MlaConfig } from '../core/model/config';
import type { AbsorbedWeights } from './fault-kernels';
import { plantAbsorbedFaults } from './fault-kernels';
import type { DeviceLinear } from './layer';

export type { AbsorbedWeights } from './fault-kernels';

/**
 * W_UK_T and W_UV from kv_b_proj as vLLM's process_weights_after_loading:
 * Wt = W.T.view(L, N, P+V); W_UK, W_UV = Wt.split([P, V], -1); W_UV.transpose(0, 1); W_UK.permute(1, 2, 0).
 * Element form: W_UK_T[h,p,l] = W[h(P+V)+p, l], W_UV[h,l,v] = W[h(P+V)+P+v, l]. With W stored
 * [out, in] the same values come from a view of W, without moving its 14.7M floats twice.
 */
export function absorbKvB(c: MlaConfig, kv_b: DeviceLinear, faults: FaultSet = new Set()): AbsorbedWeights {
  const w = tf.tidy(() => {
    const [N, P, V, L] = [c.num_attention_heads, c.qk_nope_head_dim, c.v_head_dim, c.kv_lora_rank];
    if (kv_b.layout === 'out_in') {
      const W3 = tf.reshape(kv_b.w, [N, P + V, L]); // [N,P+V,L]
      const W_UK_T = tf.slice(W3, [0, 0, 0], [N, P, L]) as tf.Tensor3D; // [N,P,L]
      const W_UV = tf.transpose(tf.slice(W3, [0, P, 0], [N, V, L]), [0, 2, 1]) as tf.Tensor3D; // [N,L,V]
      return { W_UK_T, W_UV };
    }
    const Wt3 = tf.reshape(kv_b.w, [L, N, P + V]); // W.T.view(L, N, P+V)
    const W_UK = tf.slice(Wt3, [0, 0, 0], [L, N, P]); // [L,N,P]
    const W_UV = tf.slice(Wt3, [0, 0, P], [L, N, V]); // [L,N,V]
    return { W_UK_T: tf.transpose(W_UK, [1, 2, 0]) as tf.Tensor3D, W_UV: tf.transpose(W_UV, [1, 0, 2]) as tf.Tensor3D }; // [N,P,L], [N,L,V]
  });
  return plantAbsorbedFaults(w, faults);
}
