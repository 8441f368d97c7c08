import * as tf from '@tensorflow/tfjs-core';
import type { FaultSet } from '../core/faults/catalogue';
import type { Rounding } from './rounding';
import { fp32Rounding } from './rounding';
import { latentWidth } from '../core/model/config';
import type { TensorProbe } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import { lseBoundViolations } from '../devices/kernels/attention';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import type { DeviceLayer } from './layer';
import type { AbsorbedWeights } from './fault-kernels';
import { absorbKvB } from './absorb';
import { headMatmul } from './head-matmul';
import { PagedLatentCache } from './paged-cache';
import type { PathStep } from './path-step';
import { causalKeyCounts, onHost, oProj, pathScale, pieceScalars, reportedLse } from './shared';
import { preAttention } from './pre-attention';
import { ProbeKNope } from './mqa-absorb';
import { attendSplits } from './mqa-splits';
import { mergeSplits } from './mqa-merge';

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
  /** The probe-only k_nope (its W_UK made on first use). */
  private readonly kNope: ProbeKNope;

  constructor(
    private readonly layer: DeviceLayer,
    private readonly faults: FaultSet,
    numSlots: number,
    private readonly kernels: KernelOptions,
    private readonly rd: Rounding = fp32Rounding(tf, 'mqa'),
  ) {
    this.absorbed = absorbKvB(layer.config, layer.linear.kv_b_proj, faults);
    this.cache = new PagedLatentCache(numSlots, latentWidth(layer.config));
    this.kNope = new ProbeKNope(layer, this.absorbed);
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
    const scale = pathScale(c, this.faults);
    pieceScalars(probe, piece, scale, this.faults);
    probe.scalar('kv_splits', this.kernels.kvSplits);
    const rd = this.rd;
    const s: PathStep = { layer: this.layer, faults: this.faults, probe, rd, piece, scale };
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
    if (probe.wants('k_nope')) probe.tap('k_nope', this.kNope.of(kv_c_normed, W_UK_T)); // [T,N,P]
    if (probe.wants('v')) probe.tap('v', headMatmul(this.layer, kv_c_normed, W_UV)); // [T,N,V]

    const { parts, masked } = attendSplits(s, this.kernels.kvSplits, q_nope, q_pe, W_UK_T, latent); // [1,T·N,L], [1,T·N] each
    const { lse, o_lat, max } = mergeSplits(s, parts); // [1,T·N], [1,T·N,L], [1,T·N]
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

  dispose(): void {
    this.kNope.dispose();
    tf.dispose([this.absorbed.W_UK_T, this.absorbed.W_UV]);
    this.cache.dispose();
  }
}
