import * as tf from '@tensorflow/tfjs-core';
import { NO_FAULTS } from '../core/faults/catalogue';
import type { Rounding } from './rounding';
import { fp32Rounding } from './rounding';
import type { TensorProbe } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { Attended } from '../devices/kernels/attention';
import { attend, lseBoundViolations } from '../devices/kernels/attention';
import type { MlaBackend, PieceInput } from './backend';
import { tapSampledRows } from './logits-rows';
import { foldParts } from './key-parts';
import { matmul } from '../devices/kernels/matmul';
import type { DeviceLayer } from './layer';
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
  scoped,
} from './shared';
import { preAttention } from './pre-attention';

/** A request's keys so far: K and V in key parts of at most keyPart keys (one part unless the device's binding limit asks). */
interface History {
  latent: tf.Tensor2D; // [S,L+R]
  k: tf.Tensor3D[]; // [S_i,N,D] each
  v: tf.Tensor3D[]; // [S_i,N,V] each
}

/** Rows [T,…] appended to parts of at most keyPart rows: the last part filled first. */
function appendParts(parts: readonly tf.Tensor3D[], rows: tf.Tensor3D, keyPart: number): tf.Tensor3D[] {
  const out = parts.slice(0, -1);
  let last = parts[parts.length - 1];
  let at = 0;
  const T = rows.shape[0];
  while (at < T) {
    const room = last ? keyPart - last.shape[0] : 0;
    if (room <= 0) {
      if (last) out.push(last);
      last = undefined;
    }
    const n = Math.min(T - at, room > 0 ? room : keyPart);
    const piece = tf.slice(rows, [at, 0, 0], [n, -1, -1]) as tf.Tensor3D;
    last = room > 0 && last ? (tf.concat([last, piece]) as tf.Tensor3D) : piece;
    at += n;
  }
  if (last) out.push(last);
  return out;
}

/**
 * "MHA cold prefill" in fp32 on the device, as Hugging Face eager runs MLA: the expanded per-head
 * K and V of every token kept per request (no latent paging, no chunks, no merges), and one causal
 * softmax over all keys. It shares only pre-attention with the engine paths, so with context it is
 * the third voice that says which of mha and mqa broke. Faults are never planted in it.
 */
export class ColdBackend implements MlaBackend<tf.Tensor> {
  readonly name = 'cold' as const;
  private readonly history = new Map<string, History>();

  /** `rd`: in a narrower dtype, cold rounds where FlashAttention prefill does and reads its keys through the scenario's cache format. */
  constructor(
    private readonly layer: DeviceLayer,
    private readonly rd: Rounding = fp32Rounding(tf, 'cold'),
    private readonly keyPart = Infinity,
  ) {}

  step(piece: PieceInput, probe: TensorProbe, readOutput = false): Promise<Float32Array | null> {
    return onHost(() => this.run(piece, probe), readOutput);
  }

  async fill(piece: PieceInput): Promise<void> {
    tf.tidy(() => {
      this.append(piece, NULL_PROBE);
    });
  }

  /** Pre-attention of the piece and its expanded K/V appended to the request's history. */
  private append(piece: PieceInput, probe: TensorProbe) {
    const c = this.layer.config;
    const T = piece.positions.length;
    const [N, P, R, V] = [c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim];
    const L = c.kv_lora_rank;
    const pre = preAttention(this.layer, piece, probe, NO_FAULTS, this.rd);
    const rows = this.rd.cacheRows(pre.rows, L, probe); // [T,L+R]: the keys as the cache format keeps them (pre.rows unless fp8)
    const kv_c = rows === pre.rows ? pre.kv_c_normed : tf.slice(rows, [0, 0], [T, L]); // [T,L]
    const k_pe = rows === pre.rows ? pre.k_pe : tf.slice(rows, [0, L], [T, R]); // [T,R]
    const kv_nope = probe.tap(
      'kv_nope',
      this.rd.at('kv_nope', tf.reshape(linear(kv_c, this.layer.linear.kv_b_proj), [T, N, P + V]), probe),
    ); // [T,N,P+V]
    const k_nope = probe.tap('k_nope', tf.slice(kv_nope, [0, 0, 0], [T, N, P])); // [T,N,P]
    const v = probe.tap('v', tf.slice(kv_nope, [0, 0, P], [T, N, V])); // [T,N,V]
    const k = probe.tap('k', tf.concat([k_nope, tf.broadcastTo(tf.reshape(k_pe, [T, 1, R]), [T, N, R])], -1)); // [T,N,D]
    const old = this.history.get(piece.request);
    const next: History = {
      latent: old ? tf.concat([old.latent, rows]) : rows,
      k: appendParts(old?.k ?? [], k as tf.Tensor3D, this.keyPart),
      v: appendParts(old?.v ?? [], v as tf.Tensor3D, this.keyPart),
    };
    for (const t of [next.latent, ...next.k, ...next.v]) tf.keep(t);
    if (old) tf.dispose([old.latent, ...old.k.filter((t) => !next.k.includes(t)), ...old.v.filter((t) => !next.v.includes(t))]);
    this.history.set(piece.request, next);
    return pre;
  }

  private run(piece: PieceInput, probe: TensorProbe): tf.Tensor2D {
    const c = this.layer.config;
    const T = piece.positions.length;
    const [N, V] = [c.num_attention_heads, c.v_head_dim];
    const scale = pathScale(c, NO_FAULTS);
    pieceScalars(probe, piece, scale, NO_FAULTS);
    const { q_nope, q_pe } = this.append(piece, probe);
    const h = this.history.get(piece.request)!;
    const S = h.latent.shape[0];
    probe.tap('kv_cache', h.latent); // [S,L+R]
    const qh = tf.transpose(tf.concat([q_nope, q_pe], -1), [1, 0, 2]) as tf.Tensor3D; // [N,T,D]
    const mm = this.layer.batched;
    const heads = (x: tf.Tensor3D) => tf.transpose(x, [1, 0, 2]) as tf.Tensor3D; // [S_i,N,*] → [N,S_i,*]
    const castP = (p: tf.Tensor3D) => this.rd.at('attn_probs', p);
    let out: Attended; // [N,T,V], [N,T]
    const sampled = piece.logitsRows;
    if (!sampled && (probe.wants('logits') || probe.wants('attn_probs'))) {
      // the [N,T,S] logits only for a probe; else query blocks
      // [N,S,D], [N,S,V]: one part (checkDeviceLimits)
      const [k, v] = [tf.concat(h.k.map(heads), 1) as tf.Tensor3D, tf.concat(h.v.map(heads), 1) as tf.Tensor3D];
      const logits = probe.tap('logits', tf.mul(matmul(qh, k, true, mm), scale) as tf.Tensor3D); // [N,T,S]
      const masked = tf.add(
        logits,
        tf.expandDims(
          causalBias(
            queryIndices(piece),
            Array.from({ length: S }, (_, s) => s),
          ),
          0,
        ),
      ) as tf.Tensor3D; // [N,T,S]
      out = attend(masked, v, mm, true, '-inf', castP);
      if (probe.wants('attn_probs')) probe.tap('attn_probs', tf.exp(tf.sub(masked, tf.expandDims(out.lse, -1)))); // [N,T,S]
    } else {
      // Part by part, each part's heads-major K and V made for its attention and released after it (foldParts).
      let a = 0; // key index of the part's first key: the causal offset is relative to it
      out = foldParts(h.k, (kPart, i) => {
        const offset = piece.start - a;
        a += kPart.shape[0];
        return scoped(() => {
          const args = {
            q: qh,
            k: heads(kPart),
            v: heads(h.v[i]!),
            scale,
            mask: { offset, rowsPerToken: 1 },
            emptyLse: '-inf' as const,
            castP,
          };
          return blockAttention(this.layer, probe, this.rd, args, sampled !== undefined);
        });
      });
      // The sampled rows: [N,r,S]
      if (sampled) {
        const ks = h.k.map(heads); // key parts [N,S_i,D]
        tapSampledRows(probe, { layout: 'h t s', q: qh, k: ks, scale, batched: mm, rows: sampled, offset: piece.start, lse: out.lse });
      }
    }
    probe.tap('lse', out.lse); // [N,T]
    if (probe.wants('lse'))
      probe.check(
        'lse',
        'lse_bounds',
        lseBoundViolations(out.lse, out.max, tf.expandDims(causalKeyCounts(piece), 0), 0, this.layer.lseBounds),
      );
    const attn_out_heads = probe.tap('attn_out_heads', this.rd.at('attn_out_heads', tf.transpose(out.out, [1, 0, 2]), probe)); // [T,N,V]
    const attn_out = probe.tap('attn_out', tf.reshape(attn_out_heads, [T, N * V]) as tf.Tensor2D); // [T,N·V]
    return oProj(this.layer, attn_out, probe, this.rd); // [T,H]
  }

  dispose(): void {
    for (const h of this.history.values()) tf.dispose([h.latent, ...h.k, ...h.v]);
    this.history.clear();
  }
}
