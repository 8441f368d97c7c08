/** The MHA step's output: lse (with its bounds), attention probabilities without context, attn_out_heads, attn_out and o_proj. */
import * as tf from '@tensorflow/tfjs-core';
import type { Attended } from '../devices/kernels/attention';
import { lseBoundViolations } from '../devices/kernels/attention';
import type { MhaStep } from './mha-layout';
import { swap01 } from './mha-layout';
import { causalKeyCounts, oProj } from './shared';

/**
 * lse (with its bounds), attn_out_heads, attn_out, o_proj_out; attention probabilities without context only (from masked [N,T,T] and
 * plain, the new tokens' own result). out is [N,T,V], or [T,N,V] when tokenMajor.
 */
export function mhaOutput(s: MhaStep, out: Attended, masked: tf.Tensor3D | null, plain: Attended | null, tokenMajor = false): tf.Tensor2D {
  const { layer, probe, piece } = s;
  const T = piece.positions.length;
  const [N, V] = [layer.config.num_attention_heads, layer.config.v_head_dim];
  // [N,T,S]
  if (masked && plain && probe.wants('attn_probs')) probe.tap('attn_probs', tf.exp(tf.sub(masked, tf.expandDims(plain.lse, -1))));
  probe.tap('lse', out.lse); // [N,T] (FA layout)
  if (probe.wants('lse'))
    probe.check('lse', 'lse_bounds', lseBoundViolations(out.lse, out.max, tf.expandDims(causalKeyCounts(piece), 0), 0, layer.lseBounds));
  const attn_out_heads = probe.tap('attn_out_heads', tokenMajor ? out.out : swap01(out.out)); // [T,N,V]
  const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
  return oProj(layer, attn_out, probe, s.rd); // [T,H]
}
