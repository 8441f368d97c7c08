import * as tf from '@tensorflow/tfjs-core';
import type { Attended } from './attention';
import { attend } from './attention';
import type { AttentionRequest } from './attention-kernel';
import type { Batched } from './matmul';
import { matmul } from './matmul';

/**
 * An AttentionRequest computed the unfused way: the scores [A,B,S] materialized, masked, and
 * `attend`ed. It is the oracle the fused and tiled kernels are tested against, and what they must
 * equal to fp32 tolerance. Call it inside tf.tidy (as the paths' steps are).
 */
export function unfusedAttention(req: AttentionRequest, batched: Batched): Attended {
  const { q, k, e, scale, mask } = req;
  const B = q.shape[1];
  const S = k.shape[1];
  const values = req.v ?? (tf.slice(k, [0, 0, 0], [k.shape[0], S, e]) as tf.Tensor3D); // [A|1,S,E]
  // no key: out 0, lse per emptyLse
  if (S === 0) return attend(tf.zeros([q.shape[0], B, 0]) as tf.Tensor3D, values, batched, mask !== null, req.emptyLse);
  const logits = tf.mul(matmul(q, k, true, batched), scale) as tf.Tensor3D; // [A,B,S]
  if (!mask) return attend(logits, values, batched, false, req.emptyLse);
  const bias = new Float32Array(B * S); // [B,S]: 0 where key s ≤ offset + floor(b / rowsPerToken), −inf elsewhere
  for (let b = 0; b < B; b++) {
    const last = mask.offset + Math.floor(b / mask.rowsPerToken);
    for (let s = 0; s < S; s++) bias[b * S + s] = s <= last ? 0 : -Infinity;
  }
  return attend(tf.add(logits, tf.tensor3d(bias, [1, B, S])) as tf.Tensor3D, values, batched, true, req.emptyLse);
}

/** Throws when a request's shapes do not fit together (a programming error, not bad input). */
export function checkRequest(req: AttentionRequest): void {
  const [A, , D] = req.q.shape;
  const [Ak, , Dk] = req.k.shape;
  if (Dk !== D || (Ak !== A && Ak !== 1)) throw new Error(`attention: q ${req.q.shape} and k ${req.k.shape} do not match`);
  if (req.v && (req.v.shape[1] !== req.k.shape[1] || req.v.shape[2] !== req.e))
    throw new Error(`attention: v ${req.v.shape} does not match k ${req.k.shape} and e ${req.e}`);
  if (!req.v && req.e > D) throw new Error(`attention: V = k[..., :${req.e}] needs e ≤ ${D}`);
}
