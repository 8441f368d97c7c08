/** Triton MLA stage 2: the KV splits' partial results merged through their LSEs into one lse and latent output. */
import * as tf from '@tensorflow/tfjs-core';
import type { Attended } from '../devices/kernels/attention';
import type { PathStep } from './path-step';

/** The merged attention over every key: lse [1,T·N], the latent output o_lat [1,T·N,L] and the row maxima [1,T·N]. */
export interface MergedSplits {
  lse: tf.Tensor;
  o_lat: tf.Tensor;
  max: tf.Tensor;
}

/** The splits' partials merged (one split passes through); split_lse [T,N,splits] recorded when there are several. */
export function mergeSplits(s: PathStep, parts: Attended[]): MergedSplits {
  const { faults, probe, piece } = s;
  const T = piece.positions.length;
  const N = s.layer.config.num_attention_heads;
  let lse: tf.Tensor; // [1,T·N]
  let o_lat: tf.Tensor; // [1,T·N,L]
  if (parts.length === 1) {
    [lse, o_lat] = [parts[0]!.lse, parts[0]!.out];
  } else {
    const split_lse = probe.tap(
      'split_lse',
      tf.stack(
        parts.map((p) => tf.reshape(p.lse, [T, N])),
        -1,
      ),
      't h k',
    ); // [T,N,splits]
    const all = tf.reshape(split_lse, [1, T * N, parts.length]); // [1,T·N,splits]
    // Triton stage 2: natural exp/log; the split-merge-base-2 fault combines with exp2/log2.
    const base2 = faults.has('split-merge-base-2');
    const m = tf.max(all, -1, true);
    const w = base2 ? tf.pow(2, tf.sub(all, m)) : tf.exp(tf.sub(all, m)); // empty split: −inf → 0
    const z = tf.sum(w, -1, true);
    lse = tf.squeeze(tf.add(base2 ? tf.div(tf.log(z), Math.LN2) : tf.log(z), m), [-1]);
    o_lat = tf.sum(
      tf.mul(
        tf.stack(
          parts.map((p) => p.out),
          -1,
        ),
        tf.expandDims(tf.div(w, z), 2),
      ),
      -1,
    );
  }
  const max = tf.max(
    tf.stack(
      parts.map((p) => p.max),
      -1,
    ),
    -1,
  ); // [1,T·N]
  return { lse, o_lat, max };
}
