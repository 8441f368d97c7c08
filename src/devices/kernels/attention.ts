import type { LseBoundsKernel } from './lse-bounds';
import * as tf from '@tensorflow/tfjs-core';
import type { Batched } from './matmul';
import { matmul } from './matmul';

/**
 * Attention pieces shared by the paths, heads-major: q [N,T,*], keys [N,S,*], values [N,S,E].
 * LSEs are natural log, [N,T], as FlashAttention returns them.
 */

/** LSE a kernel reports for a query that saw no key: FA3 −inf, FA2 +inf (vllm-project/vllm#15492). */
export type EmptyLse = '-inf' | '+inf';

export interface Attended {
  out: tf.Tensor3D; // [N,T,E]
  lse: tf.Tensor2D; // [N,T]
  /** Largest unmasked logit per row, for the LSE bounds check. */
  max: tf.Tensor2D; // [N,T]
}

/**
 * softmax(logits)·values over the last axis of logits [A,B,S] with values [A|1,S,E]. `masked`
 * says the logits carry −inf where a key is hidden (see causalBias): then a row whose keys are all
 * hidden (a split past a query's position) gives out 0 and lse −inf, so that merges weigh it 0.
 * Rows with no key at all (S = 0) give out 0 and lse per `empty`.
 *
 * `castP` is where a kernel stores P in the input dtype before P·V (FlashAttention, Triton MLA,
 * FlashMLA): then the unnormalized weights exp(s − max) are cast, the product accumulates in fp32
 * and is divided by the fp32 sum of the uncast weights, as those kernels do (with the row's final
 * max standing for their running max). Without it, P is normalized first and nothing rounds.
 */
export function attend(
  logits: tf.Tensor3D,
  values: tf.Tensor3D,
  batched: Batched,
  masked = false,
  empty: EmptyLse = '-inf',
  castP?: (p: tf.Tensor3D) => tf.Tensor3D,
): Attended {
  const [A, B, S] = logits.shape;
  const E = values.shape[2];
  if (S === 0) {
    const inf = empty === '+inf' ? Infinity : -Infinity;
    return { out: tf.zeros([A, B, E]), lse: tf.fill([A, B], inf), max: tf.fill([A, B], -Infinity) };
  }
  const m = tf.max(logits, -1, true); // [A,B,1]
  if (!masked) {
    const e = tf.exp(tf.sub(logits, m));
    const z = tf.sum(e, -1, true); // [A,B,1]
    const out = castP
      ? (tf.div(matmul(castP(e as tf.Tensor3D), values, false, batched), z) as tf.Tensor3D)
      : matmul(tf.div(e, z) as tf.Tensor3D, values, false, batched); // [A,B,E]
    return { out, lse: tf.squeeze(tf.add(tf.log(z), m), [-1]) as tf.Tensor2D, max: tf.squeeze(m, [-1]) as tf.Tensor2D };
  }
  const seen = tf.isFinite(m); // false: every key of the row hidden
  const e = tf.exp(tf.sub(logits, tf.where(seen, m, tf.zerosLike(m))));
  const z = tf.sum(e, -1, true); // [A,B,1]
  const zSafe = tf.where(seen, z, tf.onesLike(z)); // [A,B,1]
  const out = castP
    ? (tf.div(matmul(castP(e as tf.Tensor3D), values, false, batched), zSafe) as tf.Tensor3D)
    : matmul(tf.div(e, zSafe) as tf.Tensor3D, values, false, batched); // [A,B,E]
  const lse = tf.where(seen, tf.add(tf.log(z), m), tf.fill(m.shape, -Infinity));
  return { out, lse: tf.squeeze(lse, [-1]) as tf.Tensor2D, max: tf.squeeze(m, [-1]) as tf.Tensor2D };
}

/**
 * vLLM merge_attn_states: two partial attentions over disjoint key sets combined through their
 * LSEs (natural log). `fixInf` maps +inf to −inf first, as vLLM does for FA2's empty-context LSE.
 */
export function mergeAttnStates(prefix: Attended, suffix: Attended, fixInf = true): Attended {
  const clean = (l: tf.Tensor2D) => (fixInf ? (tf.where(tf.equal(l, Infinity), tf.fill(l.shape, -Infinity), l) as tf.Tensor2D) : l);
  const p = clean(prefix.lse);
  const s = clean(suffix.lse);
  const m = tf.maximum(p, s); // [N,T]
  const pe = tf.exp(tf.sub(p, m));
  const se = tf.exp(tf.sub(s, m));
  const z = tf.add(pe, se);
  const w = (x: tf.Tensor) => tf.expandDims(tf.div(x, z), -1); // [N,T,1]
  return {
    out: tf.add(tf.mul(prefix.out, w(pe)), tf.mul(suffix.out, w(se))) as tf.Tensor3D,
    lse: tf.add(tf.log(z), m) as tf.Tensor2D,
    max: tf.maximum(prefix.max, suffix.max) as tf.Tensor2D,
  };
}

/** The LSE bounds' absolute slack (fp32 rounding of the logits and the sum). */
export const LSE_SLACK = 1e-4;

/**
 * Count of rows breaking max logit ≤ lse ≤ max logit + ln n (n = keys the row saw), with slack:
 * LSE_SLACK plus `relSlack`·|lse| for an LSE stored in a narrower dtype (its unit roundoff).
 */
export function lseBoundViolations(lse: tf.Tensor, max: tf.Tensor, keys: tf.Tensor, relSlack = 0, kernel?: LseBoundsKernel): tf.Scalar {
  const slack = LSE_SLACK;
  if (kernel) return kernel(lse, max, keys, relSlack, slack); // the device's one-program check (webgpu)
  const s = relSlack ? tf.add(slack, tf.mul(tf.abs(lse), relSlack)) : slack;
  const lo = tf.less(lse, tf.sub(max, s));
  const hi = tf.greater(lse, tf.add(tf.add(max, tf.log(keys)), s));
  const finite = tf.isFinite(lse);
  return tf.sum(tf.cast(tf.logicalAnd(finite, tf.logicalOr(lo, hi)), 'int32'));
}
