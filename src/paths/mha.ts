import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { Rounding } from './rounding';
import { fp32Rounding } from './rounding';
import type { TensorProbe } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import type { DeviceLayer } from './layer';
import { PagedLatentCache } from './paged-cache';
import { onHost, pathScale, pieceScalars, reportedLse } from './shared';
import { preAttention } from './pre-attention';
import type { MhaStep } from './mha-layout';
import { kernelOut } from './mha-layout';
import { newTokens } from './mha-new-tokens';
import { attendContext } from './mha-context';
import { mhaOutput } from './mha-output';

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
    const scale = pathScale(this.layer.config, this.faults);
    pieceScalars(probe, piece, scale, this.faults);
    probe.scalar('context_chunks', piece.chunks.length);
    probe.scalar('empty_lse', this.kernels.emptyLse);
    const rd = this.rd;
    const pre = preAttention(this.layer, piece, probe, this.faults, rd);
    this.write(piece, pre.rows, probe); // the new tokens attend with their own kv_c_normed, k_pe (not read back from the cache)
    if (probe.wants('kv_cache')) probe.tap('kv_cache', this.cache.gather(piece.historySlots)); // [S,L+R]

    const s: MhaStep = {
      layer: this.layer,
      faults: this.faults,
      probe,
      rd,
      piece,
      scale,
      castP: (p: tf.Tensor3D) => rd.at('attn_probs', p), // FA casts P before P·V
      kernel: kernelOut(rd, probe), // FA / merge_attn_states write O in the model dtype
    };
    // The [N,T,T] logits exist only when a probe records them all (without context); else query blocks (and sampled rows on the side).
    const sampled = piece.logitsRows;
    const full = !sampled && !piece.chunks.length && (probe.wants('logits') || probe.wants('attn_probs'));
    // Without context (or sampled rows) the new tokens' attention reads q, k, v and writes out token-major [T,N,·]:
    // no transposes around a kernel that takes them so (blockAttention transposes for one that does not).
    const tokens = !piece.chunks.length && !full && sampled === undefined;
    const { qh, attended, masked } = newTokens(s, pre, { full, tokens });
    const suffix = s.kernel(attended, piece.chunks.length ? 'suffix_output' : 'attn_out_heads'); // [N,T,V] ([T,N,V] token-major), [N,T]
    if (!piece.chunks.length) return mhaOutput(s, { ...suffix, lse: reportedLse(suffix.lse, this.faults) }, masked, suffix, tokens);
    const final = attendContext(s, this.kernels, this.cache, qh!, suffix); // [N,T,V], [N,T]
    return mhaOutput(s, final, null, null);
  }

  dispose(): void {
    this.cache.dispose();
  }
}
