/** The MHA step's context (has_context): paged-cache chunks gathered, up-projected and attended, every part merged through its LSE. */
import * as tf from '@tensorflow/tfjs-core';
import { qkHeadDim } from '../core/model/config';
import type { Attended } from '../devices/kernels/attention';
import { attend, lseBoundViolations, mergeAttnStates } from '../devices/kernels/attention';
import type { KernelOptions } from './backend';
import { readUnpaddedAsDense } from './fault-kernels';
import { foldParts, keyParts } from './key-parts';
import type { MhaStep } from './mha-layout';
import { swap01 } from './mha-layout';
import type { PagedLatentCache } from './paged-cache';
import { blockAttention, linear, reportedLse, scoped } from './shared';

/** A kernel output as merge_attn_states reads it (read densely from the V-padded buffer under v-unpadded-before-merge). */
function mergeIn(s: MhaStep, a: Attended): Attended {
  return s.faults.has('v-unpadded-before-merge') ? readUnpaddedAsDense(a, qkHeadDim(s.layer.config)) : a;
}

/**
 * The context chunks, each gathered from the paged cache into a workspace, up-projected and attended without mask (qh [N,T,D]),
 * merged chunk by chunk (merge_attn_states) and at last with the new tokens' part (suffix [N,T,V], [N,T]): attn_out_heads [N,T,V].
 */
export function attendContext(s: MhaStep, kernels: KernelOptions, cache: PagedLatentCache, qh: tf.Tensor3D, suffix: Attended): Attended {
  const { layer, faults, probe, rd, piece, scale, castP, kernel } = s;
  const c = layer.config;
  const T = piece.positions.length;
  const [N, P, R, V, L] = [c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim, c.kv_lora_rank];
  const mm = layer.batched;
  const kv_b = layer.linear.kv_b_proj;
  const sampled = piece.logitsRows;
  // Every tap below returns the value the merges go on with, so that a stage replay can substitute it.
  const suffix_output = probe.tap('suffix_output', swap01(suffix.out)); // [T,N,V]
  const lse16 = (l: tf.Tensor2D, stage: 'suffix_lse' | 'chunk_lse', i?: number) =>
    faults.has('lse-bf16-merge') ? rd.as(l, 'bfloat16', probe, stage, i) : l; // [N,T]
  // [N,T]: what the kernel hands to the merge, base 2 under lse-base-2
  const suffixLse = probe.tap('suffix_lse', lse16(reportedLse(suffix.lse, faults), 'suffix_lse'));
  if (probe.wants('suffix_lse'))
    probe.check(
      'suffix_lse',
      'lse_bounds',
      lseBoundViolations(suffixLse, suffix.max, tf.expandDims(tf.tensor1d(piece.positions.map((_, t) => t + 1)), 0), 0, layer.lseBounds),
    );
  let running: Attended | null = null;
  piece.chunks.forEach(([a, b], i) => {
    const len = b - a;
    // [C_i,L+R]: the chunk's latent rows, dequantized into the model dtype
    const gathered = len ? rd.at('ctx_workspace', cache.gather(piece.chunkSlots[i]!), probe, 'ctx_workspace', i) : tf.zeros([0, L + R]);
    const ws = probe.tap('ctx_workspace', gathered, undefined, i) as tf.Tensor2D; // [C_i,L+R]
    let part: Attended;
    if (len === 0) {
      // a request with less context than this chunk's start
      part = attend(tf.zeros([N, T, 0]), tf.zeros([N, 0, V]), mm, false, kernels.emptyLse);
    } else {
      // One FlashAttention call over the chunk; a chunk past the device's binding limit in key parts merged by LSE.
      part = kernel(
        foldParts(keyParts(len, kernels.keyPart ?? Infinity), ([a0, b0]) =>
          scoped(() => {
            const n = b0 - a0;
            const ctx_nope = rd.at('kv_nope', tf.reshape(linear(tf.slice(ws, [a0, 0], [n, L]), kv_b), [n, N, P + V])); // [n,N,P+V]
            const ctx_k = tf.concat(
              [tf.slice(ctx_nope, [0, 0, 0], [n, N, P]), tf.broadcastTo(tf.reshape(tf.slice(ws, [a0, L], [n, R]), [n, 1, R]), [n, N, R])],
              -1,
            ); // [n,N,D]
            const ctx_v = tf.slice(ctx_nope, [0, 0, P], [n, N, V]); // [n,N,V]
            // context precedes, no mask
            const args = { q: qh, k: swap01(ctx_k), v: swap01(ctx_v), scale, mask: null, emptyLse: kernels.emptyLse, castP };
            return blockAttention(layer, probe, rd, args, sampled !== undefined); // [N,T,V], [N,T]
          }),
        ),
        'chunk_output',
        i,
      ); // [N,T,V], [N,T]
    }
    // The kernel's LSE: base 2 under lse-base-2; [T,N] read back as [N,T] under lse-layout-transposed.
    const transposed = faults.has('lse-layout-transposed');
    const reported = lse16(reportedLse(part.lse, faults), 'chunk_lse', i); // [N,T]
    const kernelLse = transposed ? (tf.transpose(reported) as tf.Tensor2D) : reported; // [T,N] under the fault
    const chunk_output = probe.tap('chunk_output', swap01(part.out), undefined, i); // [T,N,V]
    const chunk_lse = probe.tap('chunk_lse', kernelLse, transposed ? 't h' : 'h t', i); // [N,T] ([T,N] under the fault)
    if (len && probe.wants('chunk_lse'))
      probe.check('chunk_lse', 'lse_bounds', lseBoundViolations(reported, part.max, tf.scalar(len), 0, layer.lseBounds), i);
    const merged: Attended = {
      out: swap01(chunk_output),
      lse: transposed ? (tf.reshape(chunk_lse, [N, T]) as tf.Tensor2D) : chunk_lse,
      max: part.max,
    };
    const next: Attended =
      running === null
        ? merged
        : kernel(
            mergeAttnStates(i === 1 ? mergeIn(s, running) : running, mergeIn(s, merged), !faults.has('merge-inf-unhandled')),
            'context_output',
            i,
          );
    const context_output = probe.tap('context_output', swap01(next.out), undefined, i); // [T,N,V]
    running = { out: swap01(context_output), lse: probe.tap('context_lse', next.lse, undefined, i), max: next.max }; // [N,T,V], [N,T]
  });
  const suffixIn: Attended = { out: swap01(suffix_output), lse: suffixLse, max: suffix.max }; // [N,T,V], [N,T]
  return kernel(
    mergeAttnStates(piece.chunks.length === 1 ? mergeIn(s, running!) : running!, mergeIn(s, suffixIn), !faults.has('merge-inf-unhandled')),
    'attn_out_heads',
  );
}
