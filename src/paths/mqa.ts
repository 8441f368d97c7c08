import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { Rounding } from './rounding';
import { fp32Rounding } from './rounding';
import { latentWidth } from '../core/model/config';
import type { TensorProbe } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { Attended } from '../devices/kernels/attention';
import { attend, lseBoundViolations } from '../devices/kernels/attention';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import type { DeviceLayer } from './layer';
import type { AbsorbedWeights } from './fault-kernels';
import { absorbKvB } from './absorb';
import { tapSampledRows } from './logits-rows';
import { headMatmul } from './head-matmul';
import { matmul } from '../devices/kernels/matmul';
import { PagedLatentCache } from './paged-cache';
import {
  causalBias,
  causalKeyCounts,
  queryIndices,
  linear,
  onHost,
  oProj,
  pathScale,
  pieceScalars,
  blockAttention,
  reportedLse,
  scoped,
} from './shared';
import { preAttention } from './pre-attention';
import { splitRanges } from './splits';

/**
 * Latent-absorbed MQA as vLLM forward_mqa + _v_up_proj: W_UK folded into the query; one shared KV
 * head, the request's rows of the paged latent cache [kv_c_normed | k_pe] read through its block
 * table (V = their first L columns); each query sees the keys up to its own position (bottom-right
 * causal, as FlashMLA for several query tokens); Triton-style split-KV partial results merged
 * through their LSEs; W_UV applied after.
 */
export class MqaBackend implements MlaBackend<tf.Tensor> {
  readonly name = 'mqa' as const;
  private readonly absorbed: AbsorbedWeights;
  private readonly cache: PagedLatentCache;
  private weightsTapped = false;
  /** W_UK [N,L,P] for the probe-only k_nope on a device with a per-head GEMM, made on first use. */
  private W_UK: tf.Tensor3D | undefined;

  constructor(
    private readonly layer: DeviceLayer,
    private readonly faults: FaultSet,
    numSlots: number,
    private readonly kernels: KernelOptions,
    private readonly rd: Rounding = fp32Rounding(tf, 'mqa'),
  ) {
    this.absorbed = absorbKvB(layer.config, layer.linear.kv_b_proj, faults);
    this.cache = new PagedLatentCache(numSlots, latentWidth(layer.config));
  }

  step(piece: PieceInput, probe: TensorProbe, readOutput = false): Promise<Float32Array | null> {
    return onHost(() => this.run(piece, probe), readOutput);
  }

  async fill(piece: PieceInput): Promise<void> {
    tf.tidy(() =>
      this.cache.write(
        piece.slots,
        this.rd.cacheRows(preAttention(this.layer, piece, NULL_PROBE, this.faults, this.rd).rows, this.layer.config.kv_lora_rank),
      ),
    );
  }

  private run(piece: PieceInput, probe: TensorProbe): tf.Tensor2D {
    const c = this.layer.config;
    const T = piece.positions.length;
    const S = piece.historySlots.length; // every key up to the piece's last token
    const [N, L, V] = [c.num_attention_heads, c.kv_lora_rank, c.v_head_dim];
    const C = latentWidth(c);
    const scale = pathScale(c, this.faults);
    pieceScalars(probe, piece, scale, this.faults);
    probe.scalar('kv_splits', this.kernels.kvSplits);
    const rd = this.rd;
    const { q_nope, q_pe, kv_c_normed, rows } = preAttention(this.layer, piece, probe, this.faults, rd);
    this.cache.write(piece.slots, rd.cacheRows(rows, L, probe)); // concat_and_cache_mla, before attention
    const latent = probe.tap('kv_cache', this.cache.gather(piece.historySlots)); // [S,L+R]: K of the one KV head
    let { W_UK_T, W_UV } = this.absorbed; // [N,P,L], [N,L,V]
    if (!this.weightsTapped) {
      // recorded once per run; the piece that records them uses what the taps return
      W_UK_T = probe.tap('W_UK_T', W_UK_T); // [N,P,L]
      W_UV = probe.tap('W_UV', W_UV); // [N,L,V]
      this.weightsTapped = probe.enabled;
    }
    // Weight-derived checks (probe-only): k_nope ≡ kv_c_normed·W_UK_T[h]ᵀ, v ≡ kv_c_normed·W_UV[h].
    if (probe.wants('k_nope')) probe.tap('k_nope', this.kNope(kv_c_normed, W_UK_T)); // [T,N,P]
    const mm = this.layer.batched;
    if (probe.wants('v')) probe.tap('v', headMatmul(this.layer, kv_c_normed, W_UV)); // [T,N,V]

    // Absorbed queries and the attention in their own scope: only the partial results (and a probe's masked logits) outlive it.
    const { parts, masked } = scoped((): { parts: Attended[]; masked: tf.Tensor3D | null } => {
      const ql_full = headMatmul(this.layer, q_nope, W_UK_T); // [T,N,L] in fp32
      const ql_nope = probe.tap(
        'ql_nope',
        this.faults.has('absorbed-fp16') ? rd.as(ql_full, 'float16', probe, 'ql_nope') : rd.at('ql_nope', ql_full, probe),
      ); // [T,N,L]
      const mqa_q = probe.tap('mqa_q', tf.concat([ql_nope, q_pe], -1)); // [T,N,L+R]
      // Queries of all heads packed as rows against the one KV head: [T·N, C]·[S, C]ᵀ.
      // [S,L+R]: Triton casts fp8-dequantized K to the query dtype
      const keys = rd.spec.kvCache === 'fp8_e4m3' ? rd.at('latent_k', latent) : latent;
      const values = tf.expandDims(tf.slice(latent, [0, 0], [S, L]), 0) as tf.Tensor3D; // [1,S,L]: V = the latent itself
      const ranges = splitRanges(S, this.kernels.kvSplits);
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
          this.layer,
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
    let lse: tf.Tensor; // [1,T·N]
    let o_lat: tf.Tensor; // [1,T·N,L]
    if (parts.length === 1) {
      [lse, o_lat] = [parts[0]!.lse, parts[0]!.out];
    } else {
      const split_lse = probe.tap(
        'split_lse',
        tf.stack(
          parts.map((p) => tf.reshape(p.lse, [T, N])),
          -1,
        ),
        't h k',
      ); // [T,N,splits]
      const all = tf.reshape(split_lse, [1, T * N, parts.length]); // [1,T·N,splits]
      // Triton stage 2: natural exp/log; the split-merge-base-2 fault combines with exp2/log2.
      const base2 = this.faults.has('split-merge-base-2');
      const m = tf.max(all, -1, true);
      const w = base2 ? tf.pow(2, tf.sub(all, m)) : tf.exp(tf.sub(all, m)); // empty split: −inf → 0
      const z = tf.sum(w, -1, true);
      lse = tf.squeeze(tf.add(base2 ? tf.div(tf.log(z), Math.LN2) : tf.log(z), m), [-1]);
      o_lat = tf.sum(
        tf.mul(
          tf.stack(
            parts.map((p) => p.out),
            -1,
          ),
          tf.expandDims(tf.div(w, z), 2),
        ),
        -1,
      );
    }
    const max = tf.max(
      tf.stack(
        parts.map((p) => p.max),
        -1,
      ),
      -1,
    ); // [1,T·N]
    if (masked && parts.length === 1 && probe.wants('attn_probs')) {
      // with splits no kernel holds global probabilities
      probe.tap('attn_probs', tf.reshape(tf.exp(tf.sub(masked, tf.expandDims(lse, -1))), [T, N, S]), 't h s');
    }
    // [T,N] (Triton MLA layout; a bf16 tensor there)
    const lseTN = probe.tap('lse', rd.at('lse', reportedLse(tf.reshape(lse, [T, N]), this.faults), probe), 't h');
    if (probe.wants('lse'))
      probe.check(
        'lse',
        'lse_bounds',
        lseBoundViolations(lseTN, tf.reshape(max, [T, N]), tf.expandDims(causalKeyCounts(piece), 1), rd.slack('lse'), this.layer.lseBounds),
      );
    const attn_out_latent = probe.tap('attn_out_latent', rd.at('attn_out_latent', tf.reshape(o_lat, [T, N, L]), probe)); // [T,N,L]
    const heads = headMatmul(this.layer, attn_out_latent as tf.Tensor3D, W_UV); // [T,N,V] (_v_up_proj bmm)
    const attn_out_heads = probe.tap('attn_out_heads', rd.at('attn_out_heads', heads, probe)); // [T,N,V]
    const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
    return oProj(this.layer, attn_out, probe, rd); // [T,H]
  }

  /**
   * The probe-only k_nope = kv_c_normed·W_UK_T[h]ᵀ [T,N,P]: per head through the device's GEMM with
   * W_UK [N,L,P] transposed once (kept while W_UK_T is the absorbed weight), else one product with
   * W_UK_T's rows as an [N·P, L] linear.
   */
  private kNope(kv_c_normed: tf.Tensor2D, W_UK_T: tf.Tensor3D): tf.Tensor3D {
    const [N, P, L] = W_UK_T.shape;
    if (this.layer.headProduct) {
      // a replayed W_UK_T
      if (W_UK_T !== this.absorbed.W_UK_T) return headMatmul(this.layer, kv_c_normed, tf.transpose(W_UK_T, [0, 2, 1]) as tf.Tensor3D);
      this.W_UK ??= tf.keep(tf.transpose(W_UK_T, [0, 2, 1]) as tf.Tensor3D); // [N,L,P]
      return headMatmul(this.layer, kv_c_normed, this.W_UK);
    }
    const W_UK_rows = {
      w: tf.reshape(W_UK_T, [N * P, L]) as tf.Tensor2D,
      layout: 'out_in' as const,
      product: this.layer.linear.kv_b_proj.product,
    };
    return tf.reshape(linear(kv_c_normed, W_UK_rows), [kv_c_normed.shape[0], N, P]); // [T,N,P]
  }

  dispose(): void {
    this.W_UK?.dispose();
    tf.dispose([this.absorbed.W_UK_T, this.absorbed.W_UV]);
    this.cache.dispose();
  }
}
