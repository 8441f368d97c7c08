import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { Rounding } from './rounding';
import { fp32Rounding } from './rounding';
import { qkHeadDim } from '../core/model/config';
import type { TensorProbe } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { Attended } from '../devices/kernels/attention';
import { attend, lseBoundViolations, mergeAttnStates } from '../devices/kernels/attention';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import { kPePerHead, readUnpaddedAsDense } from './fault-kernels';
import type { DeviceLayer } from './layer';
import { tapSampledRows } from './logits-rows';
import { matmul } from '../devices/kernels/matmul';
import { PagedLatentCache } from './paged-cache';
import { keyParts, mergeParts } from './key-parts';
import { causalBias, causalKeyCounts, linear, onHost, oProj, pathScale, pieceScalars, blockAttention, reportedLse, scoped } from './shared';
import { preAttention } from './pre-attention';

/** [N,T,E] ↔ [T,N,E]. */
const swap01 = (x: tf.Tensor): tf.Tensor3D => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D;

/**
 * Reconstructed-head MHA as vLLM forward_mha: kv_b_proj up-projects the latent into per-head
 * k_nope and v; the step's own tokens attend causally (returning their LSE); with context
 * (has_context), the context is gathered from the paged cache chunk by chunk into a workspace,
 * up-projected, attended without mask, and every partial result merged through its LSE
 * (merge_attn_states), then merged with the new-token part.
 */
export class MhaBackend implements MlaBackend<tf.Tensor> {
  readonly name = 'mha' as const;
  private readonly cache: PagedLatentCache;

  constructor(
    private readonly layer: DeviceLayer,
    private readonly faults: FaultSet,
    numSlots: number,
    private readonly kernels: KernelOptions,
    private readonly rd: Rounding = fp32Rounding(tf, 'mha'),
  ) {
    this.cache = new PagedLatentCache(numSlots, layer.config.kv_lora_rank + layer.config.qk_rope_head_dim);
  }

  step(piece: PieceInput, probe: TensorProbe, readOutput = false): Promise<Float32Array | null> {
    return onHost(() => this.run(piece, probe), readOutput);
  }

  async fill(piece: PieceInput): Promise<void> {
    tf.tidy(() => this.write(piece, preAttention(this.layer, piece, NULL_PROBE, this.faults, this.rd).rows, NULL_PROBE));
  }

  private write(piece: PieceInput, rows: tf.Tensor2D, probe: TensorProbe): void {
    this.cache.write(piece.slots, this.rd.cacheRows(rows, this.layer.config.kv_lora_rank, probe)); // concat_and_cache_mla, before attention
  }

  private run(piece: PieceInput, probe: TensorProbe): tf.Tensor2D {
    const c = this.layer.config;
    const T = piece.positions.length;
    const [N, P, R, V, L] = [c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim, c.kv_lora_rank];
    const scale = pathScale(c, this.faults);
    pieceScalars(probe, piece, scale, this.faults);
    probe.scalar('context_chunks', piece.chunks.length);
    probe.scalar('empty_lse', this.kernels.emptyLse);
    const rd = this.rd;
    const { q_nope, q_pe, kv_c_normed, k_pe, k_pe_raw, style, rows } = preAttention(this.layer, piece, probe, this.faults, rd);
    this.write(piece, rows, probe); // the new tokens attend with their own kv_c_normed, k_pe (not read back from the cache)
    if (probe.wants('kv_cache')) probe.tap('kv_cache', this.cache.gather(piece.historySlots)); // [S,L+R]

    const mm = this.layer.batched;
    const castP = (p: tf.Tensor3D) => rd.at('attn_probs', p); // FA casts P before P·V
    // FA / merge_attn_states write O in the model dtype
    const kernel = (
      a: Attended,
      stage: 'attn_out_heads' | 'suffix_output' | 'chunk_output' | 'context_output',
      chunk?: number,
    ): Attended => ({ ...a, out: rd.at('attn_out_heads', a.out, probe, stage, chunk) });
    // The [N,T,T] logits exist only when a probe records them all (without context); else query blocks (and sampled rows on the side).
    const sampled = piece.logitsRows;
    const full = !sampled && !piece.chunks.length && (probe.wants('logits') || probe.wants('attn_probs'));
    // Without context (or sampled rows) the new tokens' attention reads q, k, v and writes out token-major [T,N,·]:
    // no transposes around a kernel that takes them so (blockAttention transposes for one that does not).
    const tokens = !piece.chunks.length && !full && sampled === undefined;
    // K, V and the new tokens' attention in their own scope: only qh (for the context chunks), the result and a probe's masked logits
    // outlive it.
    const { qh, attended, masked } = scoped((): { qh: tf.Tensor3D | null; attended: Attended; masked: tf.Tensor3D | null } => {
      const kv_nope = probe.tap(
        'kv_nope',
        rd.at('kv_nope', tf.reshape(linear(kv_c_normed, this.layer.linear.kv_b_proj), [T, N, P + V]), probe),
      ); // [T,N,P+V]
      const k_nope = probe.tap('k_nope', tf.slice(kv_nope, [0, 0, 0], [T, N, P])); // [T,N,P]
      const v = probe.tap('v', tf.slice(kv_nope, [0, 0, P], [T, N, V])); // [T,N,V]
      const k_pe_heads = this.faults.has('k-pe-per-head')
        ? kPePerHead(c, k_pe_raw, piece.positions, style)
        : tf.broadcastTo(tf.reshape(k_pe, [T, 1, R]), [T, N, R]); // [T,N,R]
      const k = probe.tap('k', tf.concat([k_nope, k_pe_heads], -1)); // [T,N,D]
      const q = tf.concat([q_nope, q_pe], -1) as tf.Tensor3D; // [T,N,D]
      if (tokens)
        return {
          qh: null,
          attended: blockAttention(this.layer, probe, rd, {
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
          this.layer,
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
    const suffix = kernel(attended, piece.chunks.length ? 'suffix_output' : 'attn_out_heads'); // [N,T,V] ([T,N,V] token-major), [N,T]
    if (!piece.chunks.length)
      return this.finish(piece, probe, { ...suffix, lse: reportedLse(suffix.lse, this.faults) }, masked, suffix, T, N, V, tokens);

    // Every tap below returns the value the merges go on with, so that a stage replay can substitute it.
    const suffix_output = probe.tap('suffix_output', swap01(suffix.out)); // [T,N,V]
    const lse16 = (l: tf.Tensor2D, stage: 'suffix_lse' | 'chunk_lse', i?: number) =>
      this.faults.has('lse-bf16-merge') ? rd.as(l, 'bfloat16', probe, stage, i) : l; // [N,T]
    // [N,T]: what the kernel hands to the merge, base 2 under lse-base-2
    const suffixLse = probe.tap('suffix_lse', lse16(reportedLse(suffix.lse, this.faults), 'suffix_lse'));
    if (probe.wants('suffix_lse'))
      probe.check(
        'suffix_lse',
        'lse_bounds',
        lseBoundViolations(
          suffixLse,
          suffix.max,
          tf.expandDims(tf.tensor1d(piece.positions.map((_, t) => t + 1)), 0),
          0,
          this.layer.lseBounds,
        ),
      );
    let running: Attended | null = null;
    piece.chunks.forEach(([a, b], i) => {
      const len = b - a;
      const gathered = len
        ? rd.at('ctx_workspace', this.cache.gather(piece.chunkSlots[i]!), probe, 'ctx_workspace', i)
        : tf.zeros([0, L + R]); // [C_i,L+R]: dequantized into the model dtype
      const ws = probe.tap('ctx_workspace', gathered, undefined, i) as tf.Tensor2D; // [C_i,L+R]
      let part: Attended;
      if (len === 0) {
        // a request with less context than this chunk's start
        part = attend(tf.zeros([N, T, 0]), tf.zeros([N, 0, V]), mm, false, this.kernels.emptyLse);
      } else {
        // One FlashAttention call over the chunk; a chunk past the device's binding limit in key parts merged by LSE.
        part = kernel(
          mergeParts(
            keyParts(len, this.kernels.keyPart ?? Infinity).map(([a0, b0]) =>
              scoped(() => {
                const n = b0 - a0;
                const ctx_nope = rd.at(
                  'kv_nope',
                  tf.reshape(linear(tf.slice(ws, [a0, 0], [n, L]), this.layer.linear.kv_b_proj), [n, N, P + V]),
                ); // [n,N,P+V]
                const ctx_k = tf.concat(
                  [
                    tf.slice(ctx_nope, [0, 0, 0], [n, N, P]),
                    tf.broadcastTo(tf.reshape(tf.slice(ws, [a0, L], [n, R]), [n, 1, R]), [n, N, R]),
                  ],
                  -1,
                ); // [n,N,D]
                const ctx_v = tf.slice(ctx_nope, [0, 0, P], [n, N, V]); // [n,N,V]
                // context precedes, no mask
                const args = { q: qh!, k: swap01(ctx_k), v: swap01(ctx_v), scale, mask: null, emptyLse: this.kernels.emptyLse, castP };
                return blockAttention(this.layer, probe, rd, args, sampled !== undefined); // [N,T,V], [N,T]
              }),
            ),
          ),
          'chunk_output',
          i,
        ); // [N,T,V], [N,T]
      }
      // The kernel's LSE: base 2 under lse-base-2; [T,N] read back as [N,T] under lse-layout-transposed.
      const transposed = this.faults.has('lse-layout-transposed');
      const reported = lse16(reportedLse(part.lse, this.faults), 'chunk_lse', i); // [N,T]
      const kernelLse = transposed ? (tf.transpose(reported) as tf.Tensor2D) : reported; // [T,N] under the fault
      const chunk_output = probe.tap('chunk_output', swap01(part.out), undefined, i); // [T,N,V]
      const chunk_lse = probe.tap('chunk_lse', kernelLse, transposed ? 't h' : 'h t', i); // [N,T] ([T,N] under the fault)
      if (len && probe.wants('chunk_lse'))
        probe.check('chunk_lse', 'lse_bounds', lseBoundViolations(reported, part.max, tf.scalar(len), 0, this.layer.lseBounds), i);
      const merged: Attended = {
        out: swap01(chunk_output),
        lse: transposed ? (tf.reshape(chunk_lse, [N, T]) as tf.Tensor2D) : chunk_lse,
        max: part.max,
      };
      const next: Attended =
        running === null
          ? merged
          : kernel(
              mergeAttnStates(i === 1 ? this.mergeIn(running) : running, this.mergeIn(merged), !this.faults.has('merge-inf-unhandled')),
              'context_output',
              i,
            );
      const context_output = probe.tap('context_output', swap01(next.out), undefined, i); // [T,N,V]
      running = { out: swap01(context_output), lse: probe.tap('context_lse', next.lse, undefined, i), max: next.max }; // [N,T,V], [N,T]
    });
    const suffixIn: Attended = { out: swap01(suffix_output), lse: suffixLse, max: suffix.max }; // [N,T,V], [N,T]
    const final = kernel(
      mergeAttnStates(
        piece.chunks.length === 1 ? this.mergeIn(running!) : running!,
        this.mergeIn(suffixIn),
        !this.faults.has('merge-inf-unhandled'),
      ),
      'attn_out_heads',
    );
    return this.finish(piece, probe, final, null, null, T, N, V);
  }

  /** A kernel output as merge_attn_states reads it (read densely from the V-padded buffer under v-unpadded-before-merge). */
  private mergeIn(a: Attended): Attended {
    return this.faults.has('v-unpadded-before-merge') ? readUnpaddedAsDense(a, qkHeadDim(this.layer.config)) : a;
  }

  /**
   * lse (with its bounds), attn_out_heads, attn_out, o_proj_out; attention probabilities without context only. out is [N,T,V], or [T,N,V]
   * when tokenMajor.
   */
  private finish(
    piece: PieceInput,
    probe: TensorProbe,
    out: Attended,
    masked: tf.Tensor3D | null,
    plain: Attended | null,
    T: number,
    N: number,
    V: number,
    tokenMajor = false,
  ): tf.Tensor2D {
    // [N,T,S]
    if (masked && plain && probe.wants('attn_probs')) probe.tap('attn_probs', tf.exp(tf.sub(masked, tf.expandDims(plain.lse, -1))));
    probe.tap('lse', out.lse); // [N,T] (FA layout)
    if (probe.wants('lse'))
      probe.check(
        'lse',
        'lse_bounds',
        lseBoundViolations(out.lse, out.max, tf.expandDims(causalKeyCounts(piece), 0), 0, this.layer.lseBounds),
      );
    const attn_out_heads = probe.tap('attn_out_heads', tokenMajor ? out.out : swap01(out.out)); // [T,N,V]
    const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
    return oProj(this.layer, attn_out, probe, this.rd); // [T,H]
  }

  dispose(): void {
    this.cache.dispose();
  }
}
