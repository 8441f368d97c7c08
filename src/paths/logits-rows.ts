import * as tf from '@tensorflow/tfjs-core';
import type { TensorProbe } from '../core/probes/probe';
import type { Batched } from '../devices/kernels/matmul';
import { matmul } from '../devices/kernels/matmul';
import { causalBias } from './shared';

/**
 * Sampled logits rows (scenario `schedule.logits_rows`): with fused attention the [N,T,S] scores
 * are never formed, so a path records the logits of a few query tokens only, computed on the side
 * with a small unfused product (their q rows · kᵀ × scale), and their probabilities from the row
 * LSE the attention returned. The attention itself does not read them.
 */

/** A piece's sampled rows: indices within its T tokens, negative from its end; out of range skipped; unique, sorted. */
export function resolveLogitsRows(spec: readonly number[], T: number): number[] {
  return [...new Set(spec.map((i) => (i < 0 ? T + i : i)).filter((i) => i >= 0 && i < T))].sort((a, b) => a - b);
}

/** The rows as the piece scalar `logits_rows` records them: "0,17,31". */
export const logitsRowsLabel = (rows: readonly number[]): string => rows.join(',');

/**
 * Where the sampled rows are taken from. Heads-major ('h t s'): q [N,T,D], k [N|1,S,D], lse [N,T].
 * Token-major ('t h s', the MQA path): q [T,N,C] against the one KV head's keys [S,C], lse [T,N].
 */
export interface RowSource {
  layout: 'h t s' | 't h s';
  q: tf.Tensor3D;
  /** Heads-major keys may come in key parts [N,S_i,D] (the cold path's history past the binding limit). */
  k: tf.Tensor2D | tf.Tensor3D | readonly tf.Tensor3D[];
  scale: number;
  batched: Batched;
  /** Sampled token indices within the piece (resolveLogitsRows). */
  rows: readonly number[];
  /** Key index of the piece's first token under the causal mask (0 for MHA's own tokens, the piece start over every key). */
  offset: number;
  /** The attention's LSE of every row of the piece (natural log); null: no probabilities (e.g. split partials). */
  lse: tf.Tensor2D | null;
}

/** Logits of the sampled rows, before the mask: [N,r,S] ('h t s') or [r,N,S] ('t h s'). */
export function sampledLogits(src: RowSource): tf.Tensor3D {
  const idx = tf.tensor1d(Int32Array.from(src.rows), 'int32'); // [r]
  if (src.layout === 'h t s') {
    const qr = tf.gather(src.q, idx, 1) as tf.Tensor3D; // [N,r,D]
    const parts = Array.isArray(src.k) ? (src.k as readonly tf.Tensor3D[]) : [src.k as tf.Tensor3D];
    return tf.mul(
      tf.concat(
        parts.map((k) => matmul(qr, k, true, src.batched)),
        2,
      ),
      src.scale,
    ) as tf.Tensor3D; // [N,r,S]
  }
  if (Array.isArray(src.k)) throw new Error('sampledLogits: key parts are heads-major only');
  const [, N, C] = src.q.shape;
  const qr = tf.reshape(tf.gather(src.q, idx, 0), [src.rows.length * N, C]) as tf.Tensor2D; // [r·N,C]: heads packed as rows
  const k2 = src.k as tf.Tensor2D; // [S,C]
  const S = k2.shape[0];
  return tf.reshape(tf.mul(matmul(qr, k2, true, src.batched), src.scale), [src.rows.length, N, S]) as tf.Tensor3D; // [r,N,S]
}

/** exp(masked logits − lse) of the sampled rows, in the logits' layout. */
export function sampledProbs(src: RowSource, logits: tf.Tensor3D, lse: tf.Tensor2D): tf.Tensor3D {
  const S = logits.shape[2];
  const idx = tf.tensor1d(Int32Array.from(src.rows), 'int32'); // [r]
  const bias = causalBias(
    src.rows.map((t) => src.offset + t),
    Array.from({ length: S }, (_, s) => s),
  ); // [r,S]
  const heads = src.layout === 'h t s';
  const rowLse = tf.expandDims(tf.gather(lse, idx, heads ? 1 : 0), -1); // [N,r,1] or [r,N,1]
  return tf.exp(tf.sub(tf.add(logits, tf.expandDims(bias, heads ? 0 : 1)), rowLse)) as tf.Tensor3D;
}

/**
 * Records `logits` (and `attn_probs` where the source has the LSE) of the sampled rows; nothing
 * when the piece has no row in range or the probe wants neither. The probabilities are computed
 * from what the `logits` tap returns (a stage replay's substitute).
 */
export function tapSampledRows(probe: TensorProbe, src: RowSource): void {
  if (!src.rows.length || !(probe.wants('logits') || probe.wants('attn_probs'))) return;
  const logits = probe.tap('logits', sampledLogits(src), src.layout);
  if (src.lse && probe.wants('attn_probs')) probe.tap('attn_probs', sampledProbs(src, logits, src.lse), src.layout);
}
