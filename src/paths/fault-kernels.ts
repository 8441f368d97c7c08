import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { MlaConfig } from '../core/model/config';
import type { RopeStyle } from '../core/model/rope';
import { ropeTables } from '../core/model/rope';
import type { Attended } from '../devices/kernels/attention';
import { applyRope, ropeTensors } from './shared';

/**
 * The kernels of planted faults that replace a whole computation rather than a constant: each is
 * the wrong code of a real bug class (src/core/faults/catalogue.ts), applied only when the fault is in the
 * path's FaultSet and the shapes let it act.
 */

export interface AbsorbedWeights {
  W_UK_T: tf.Tensor3D; // [N,P,L]
  W_UV: tf.Tensor3D; // [N,L,V]
}

/** `w-uk-wrong-axis` and `w-uk-uv-swapped` applied to correctly absorbed weights (which it disposes when it replaces them). */
export function plantAbsorbedFaults(w: AbsorbedWeights, faults: FaultSet): AbsorbedWeights {
  const [N, P, L] = w.W_UK_T.shape;
  const V = w.W_UV.shape[2];
  let out = w;
  if (faults.has('w-uk-wrong-axis')) {
    // The [N,P,L] block reshaped to [N,L,P] (memory reinterpreted) and transposed back.
    // [N,P,L], scrambled
    out = { ...out, W_UK_T: tf.tidy(() => tf.transpose(tf.reshape(out.W_UK_T, [N, L, P]), [0, 2, 1]) as tf.Tensor3D) };
    w.W_UK_T.dispose();
  }
  if (faults.has('w-uk-uv-swapped') && P === V) {
    // The V block read as W_UK and the K block as W_UV: one shape when P = V.
    // [N,P,L], [N,L,V]
    const swapped = { W_UK_T: tf.transpose(out.W_UV, [0, 2, 1]) as tf.Tensor3D, W_UV: tf.transpose(out.W_UK_T, [0, 2, 1]) as tf.Tensor3D };
    tf.dispose([out.W_UK_T, out.W_UV]);
    out = swapped;
  }
  return out;
}

/**
 * `k-pe-per-head`: k_pe_raw [T,R] broadcast to [T,N,R] and rotated by a kernel that walks the head
 * axis as positions, so head h turns by position + h. Returns the per-head k_pe [T,N,R].
 */
export function kPePerHead(c: MlaConfig, k_pe_raw: tf.Tensor2D, positions: readonly number[], style: RopeStyle): tf.Tensor3D {
  const T = positions.length;
  const N = c.num_attention_heads;
  const R = c.qk_rope_head_dim;
  const rope = ropeTensors(
    ropeTables(
      c,
      positions.flatMap((p) => Array.from({ length: N }, (_, h) => p + h)),
    ),
    T * N,
  ); // [T·N, R/2]
  const heads = tf.reshape(tf.broadcastTo(tf.reshape(k_pe_raw, [T, 1, R]), [T, N, R]), [T * N, R]); // [T·N,R]
  return tf.reshape(applyRope(heads, rope, style), [T, N, R]) as tf.Tensor3D; // [T,N,R]
}

/**
 * `v-unpadded-before-merge`: a kernel output [N,T,V] as merge_attn_states reads it once it is a
 * [T,N,V] view of FlashAttention's [T,N,D] V-padded buffer: the first T·N·V floats of that buffer,
 * taken as dense [T,N,V]. The identity when V = D.
 */
export function readUnpaddedAsDense(a: Attended, D: number): Attended {
  const [N, T, V] = a.out.shape;
  if (V === D) return a;
  const padded = tf.pad(tf.transpose(a.out, [1, 0, 2]), [
    [0, 0],
    [0, 0],
    [0, D - V],
  ]); // [T,N,D]
  const dense = tf.reshape(tf.slice(tf.reshape(padded, [T * N * D]), [0], [T * N * V]), [T, N, V]); // [T,N,V] read densely
  return { ...a, out: tf.transpose(dense, [1, 0, 2]) as tf.Tensor3D }; // [N,T,V]
}
