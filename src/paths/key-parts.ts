import * as tf from '@tensorflow/tfjs-core';
import type { Attended } from '../devices/kernels/attention';
import { mergeAttnStates } from '../devices/kernels/attention';

/**
 * Key sets longer than one device tensor can hold, attended in parts. A device binds at most
 * maxTensorBytes per tensor (WebGPU: 2 GiB − 4); a 24 576-key MHA context chunk of GLM-5 up-projects
 * to [24576, 64, 448] floats, 2.8 GB. Such a key set is cut into parts of at most `keyPart` keys,
 * each attended on its own and merged by LSE (merge_attn_states, in fp32, natural log): the same
 * attention over the whole set up to rounding, as a kernel's own key tiles are, so the engine
 * semantics (the chunk's one output and LSE) stay. Planned up front from the device's limit.
 */

/**
 * Ranges [a, b) covering [0, S) (one empty range for S = 0): parts of `keyPart` keys, the rest last. Full parts,
 * not balanced ones: their temporaries are one size whatever the chunk's length, so tfjs's buffer pool (which
 * reuses a buffer only for the same size) serves every chunk and piece of a long prompt from the same buffers.
 */
export function keyParts(S: number, keyPart: number): [number, number][] {
  if (!(keyPart >= 1)) throw new Error(`keyParts: keyPart must be ≥ 1, got ${keyPart}`);
  if (S <= keyPart) return [[0, S]];
  return Array.from({ length: Math.ceil(S / keyPart) }, (_, i): [number, number] => [i * keyPart, Math.min((i + 1) * keyPart, S)]);
}

/**
 * Partial attentions over disjoint key parts, attended one at a time and merged into the running result as each
 * comes (merge_attn_states, left to right; a part whose rows saw no key weighs 0): at most two parts' outputs and
 * one merge's temporaries alive. Attending every part first and merging at the end kept every part's output and
 * every merge's [N,T,V] temporaries until the step's scope ended (GLM-5 at 64 heads: 1.5 GiB a merge, about
 * 10 GiB over a 128k context: bench/long/results.md). `attend` returns tensors only its part uses: each is
 * released as soon as it is merged.
 */
export function foldParts<R>(ranges: readonly R[], attend: (range: R, index: number) => Attended): Attended {
  let acc: Attended | null = null;
  for (const [i, r] of ranges.entries()) {
    const part = attend(r, i);
    if (acc === null) {
      acc = part;
      continue;
    }
    const prev: Attended = acc;
    acc = tf.tidy(() => mergeAttnStates(prev, part, true) as unknown as tf.TensorContainer) as unknown as Attended;
    tf.dispose([prev.out, prev.lse, prev.max, part.out, part.lse, part.max]);
  }
  if (acc === null) throw new Error('foldParts: no parts');
  return acc;
}

/**
 * The most keys per part so that a part's largest per-key tensor ([keys, N, width] floats) stays
 * within the device's per-tensor limit; Infinity where it has none worth splitting for.
 */
export function keyPartFor(maxTensorBytes: number, heads: number, widestPerHead: number): number {
  if (!Number.isFinite(maxTensorBytes)) return Infinity;
  return Math.max(1, Math.floor(maxTensorBytes / (4 * heads * widestPerHead)));
}
