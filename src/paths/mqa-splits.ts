/** The MQA attention: the absorbed queries of all heads packed as rows against the one KV head, one kernel per KV split. */
import * as tf from '@tensorflow/tfjs-core';
import { latentWidth } from '../core/model/config';
import type { Attended } from '../devices/kernels/attention';
import { attend } from '../devices/kernels/attention';
import { matmul } from '../devices/kernels/matmul';
import { tapSampledRows } from './logits-rows';
import { absorbQuery } from './mqa-absorb';
import type { PathStep } from './path-step';
import { blockAttention, causalBias, queryIndices, scoped } from './shared';
import { splitRanges } from './splits';

/** The splits' partial results ([1,T·N,L], [1,T·N]) and, when a probe records the logits, the masked [1,T·N,S] logits. */
export interface SplitAttention {
  parts: Attended[];
  masked: tf.Tensor3D | null;
}

/**
 * Absorbed queries and the attention in their own scope: only the partial results (and a probe's masked logits) outlive it. latent
 * [S,L+R] is the request's cache rows (K; V its first L columns).
 */
export function attendSplits(
  s: PathStep,
  kvSplits: number,
  q_nope: tf.Tensor3D,
  q_pe: tf.Tensor3D,
  W_UK_T: tf.Tensor3D,
  latent: tf.Tensor2D,
): SplitAttention {
  const { layer, probe, rd, piece, scale } = s;
  const T = piece.positions.length;
  const S = piece.historySlots.length; // every key up to the piece's last token
  const [N, L] = [layer.config.num_attention_heads, layer.config.kv_lora_rank];
  const C = latentWidth(layer.config);
  const mm = layer.batched;
  return scoped((): SplitAttention => {
    const mqa_q = absorbQuery(s, q_nope, q_pe, W_UK_T); // [T,N,L+R]
    // Queries of all heads packed as rows against the one KV head: [T·N, C]·[S, C]ᵀ.
    // [S,L+R]: Triton casts fp8-dequantized K to the query dtype
    const keys = rd.spec.kvCache === 'fp8_e4m3' ? rd.at('latent_k', latent) : latent;
    const values = tf.expandDims(tf.slice(latent, [0, 0], [S, L]), 0) as tf.Tensor3D; // [1,S,L]: V = the latent itself
    const ranges = splitRanges(S, kvSplits);
    const castP = (p: tf.Tensor3D) => rd.at('attn_probs', p); // P cast to the cache dtype before P·V; split partials stay fp32
    // The [T,N,S] logits exist only when a probe records them all; else each split runs in query blocks (sampled rows on the side).
    const sampled = piece.logitsRows;
    if (!sampled && (probe.wants('logits') || probe.wants('attn_probs'))) {
      const logits = probe.tap(
        'logits',
        tf.reshape(tf.mul(matmul(tf.reshape(mqa_q, [T * N, C]) as tf.Tensor2D, keys, true, mm), scale), [T, N, S]),
        't h s',
      ); // [T,N,S]
      const keyIdx = Array.from({ length: S }, (_, s) => s);
      const bias = tf.expandDims(causalBias(queryIndices(piece), keyIdx), 1); // [T,1,S]: bottom-right causal
      const full = tf.reshape(tf.add(logits, bias), [1, T * N, S]) as tf.Tensor3D; // [1,T·N,S]
      return {
        masked: full,
        parts: ranges.map(([a, b]) =>
          attend(
            tf.slice(full, [0, 0, a], [1, T * N, b - a]) as tf.Tensor3D,
            tf.slice(values, [0, a, 0], [1, b - a, L]) as tf.Tensor3D,
            mm,
            true,
            '-inf',
            castP,
          ),
        ),
      };
    }
    const q = tf.reshape(mqa_q, [1, T * N, C]) as tf.Tensor3D; // [1,T·N,C]: heads packed as rows
    const parts = ranges.map(([a, b]) =>
      blockAttention(
        layer,
        probe,
        rd,
        {
          q,
          k: tf.expandDims(tf.slice(keys, [a, 0], [b - a, C]), 0) as tf.Tensor3D, // [1,S_i,C]
          // V = the first L columns of K, read in place, unless an fp8 cache gave K its own cast.
          v: keys === latent ? null : (tf.slice(values, [0, a, 0], [1, b - a, L]) as tf.Tensor3D),
          vDim: L, // [1,S_i,L]
          scale,
          mask: { offset: piece.start - a, rowsPerToken: N },
          emptyLse: '-inf',
          castP,
        },
        sampled !== undefined,
      ),
    );
    // Sampled rows over every key; their probabilities where one kernel holds the global LSE (no splits).
    const lse1 = parts.length === 1 ? (tf.reshape(parts[0]!.lse, [T, N]) as tf.Tensor2D) : null; // [T,N]
    // The sampled rows: [r,N,S]
    if (sampled)
      tapSampledRows(probe, { layout: 't h s', q: mqa_q, k: keys, scale, batched: mm, rows: sampled, offset: piece.start, lse: lse1 });
    return { masked: null, parts };
  });
}
