/** The MHA step's own tokens: kv_b_proj up-projects kv_c_normed into per-head k_nope and v, and the new tokens attend causally. */
import * as tf from '@tensorflow/tfjs-core';
import type { Attended } from '../devices/kernels/attention';
import { attend } from '../devices/kernels/attention';
import { matmul } from '../devices/kernels/matmul';
import { kPePerHead } from './fault-kernels';
import { tapSampledRows } from './logits-rows';
import type { MhaStep } from './mha-layout';
import { swap01 } from './mha-layout';
import type { PreAttention } from './pre-attention';
import { blockAttention, causalBias, linear, scoped } from './shared';

/** How the new tokens' attention runs: over the full [N,T,T] logits, token-major, or heads-major in query blocks. */
export interface NewTokensMode {
  /** The [N,T,T] logits exist only when a probe records them all (without context). */
  full: boolean;
  /** Without context (or sampled rows): q, k, v in and out token-major [T,N,·]. */
  tokens: boolean;
}

/** The new tokens' attention; qh [N,T,D] for the context chunks (null token-major), masked [N,T,T] only under `full`. */
export interface NewTokens {
  qh: tf.Tensor3D | null;
  attended: Attended;
  masked: tf.Tensor3D | null;
}

/**
 * K, V and the new tokens' attention in their own scope: only qh (for the context chunks), the result and a probe's masked logits
 * outlive it.
 */
export function newTokens(s: MhaStep, pre: PreAttention, { full, tokens }: NewTokensMode): NewTokens {
  const { layer, faults, probe, rd, piece, scale, castP } = s;
  const c = layer.config;
  const T = piece.positions.length;
  const [N, P, R, V] = [c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim];
  const { q_nope, q_pe, kv_c_normed, k_pe, k_pe_raw, style } = pre;
  const mm = layer.batched;
  const kv_b = layer.linear.kv_b_proj;
  const sampled = piece.logitsRows;
  return scoped((): NewTokens => {
    const kv_nope = probe.tap('kv_nope', rd.at('kv_nope', tf.reshape(linear(kv_c_normed, kv_b), [T, N, P + V]), probe)); // [T,N,P+V]
    const k_nope = probe.tap('k_nope', tf.slice(kv_nope, [0, 0, 0], [T, N, P])); // [T,N,P]
    const v = probe.tap('v', tf.slice(kv_nope, [0, 0, P], [T, N, V])); // [T,N,V]
    const k_pe_heads = faults.has('k-pe-per-head')
      ? kPePerHead(c, k_pe_raw, piece.positions, style)
      : tf.broadcastTo(tf.reshape(k_pe, [T, 1, R]), [T, N, R]); // [T,N,R]
    const k = probe.tap('k', tf.concat([k_nope, k_pe_heads], -1)); // [T,N,D]
    const q = tf.concat([q_nope, q_pe], -1) as tf.Tensor3D; // [T,N,D]
    if (tokens)
      return {
        qh: null,
        attended: blockAttention(layer, probe, rd, {
          q,
          k: k as tf.Tensor3D,
          v: v as tf.Tensor3D,
          scale,
          mask: { offset: 0, rowsPerToken: 1 },
          emptyLse: '-inf',
          castP,
          tokens,
        }),
        masked: null,
      }; // out [T,N,V]
    const qh = swap01(q); // [N,T,D]
    // New tokens: FlashAttention varlen, causal, heads-major [N,T,D]·[N,T,D]ᵀ.
    if (!full) {
      const own = blockAttention(
        layer,
        probe,
        rd,
        { q: qh, k: swap01(k), v: swap01(v), scale, mask: { offset: 0, rowsPerToken: 1 }, emptyLse: '-inf', castP },
        sampled !== undefined,
      );
      // The sampled rows: [N,r,T]
      if (sampled && !piece.chunks.length)
        tapSampledRows(probe, { layout: 'h t s', q: qh, k: swap01(k), scale, batched: mm, rows: sampled, offset: 0, lse: own.lse });
      return { qh, attended: own, masked: null };
    }
    // [N,T,T]: recorded (and replayable)
    const logits = probe.tap('logits', tf.mul(matmul(qh, swap01(k), true, mm), scale) as tf.Tensor3D);
    const local = piece.positions.map((_, t) => t);
    const masked = tf.add(logits, tf.expandDims(causalBias(local, local), 0)) as tf.Tensor3D; // [N,T,T]
    return { qh, attended: attend(masked, swap01(v), mm, true, '-inf', castP), masked };
  });
}
