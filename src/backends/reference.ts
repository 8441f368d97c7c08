import { qkHeadDim, softmaxScale } from '../model/config';
import { ropeTables } from '../model/rope';
import type { HostProbe, HostTensor } from '../probes/probe';
import type { HeadSlice, WeightSource } from '../weights/layer';
import { sliceRanges, slicedConfig } from '../weights/layer';
import type { LayerInput, MlaBackend } from './backend';
import { causalSoftmax, concatCols, gemmNT, linearStream, rmsNormRows, ropeRows, sliceCols } from './reference-math';

const host = (shape: number[], data: Float64Array | Float32Array): HostTensor => ({ shape, data });

/**
 * Textbook MLA in float64 plain TypeScript (Hugging Face eager: reconstructed heads, softmax,
 * P·V), plus the absorbed quantities (W_UK_T, ql_nope, attn_out_latent) so that every stage of
 * either engine path has a float64 value to be judged against. Weights stream from the source.
 */
export class ReferenceBackend implements MlaBackend<HostTensor> {
  readonly name = 'reference' as const;

  constructor(private readonly source: WeightSource, private readonly heads: HeadSlice) {}

  async forward(input: LayerInput, probe: HostProbe): Promise<Float64Array> {
    const full = this.source.config;
    const c = slicedConfig(full, this.heads);
    const T = input.positions.length;
    const S = T;
    const [H, N, P, R, V, L, Lq] = [c.hidden_size, c.num_attention_heads, c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim, c.kv_lora_rank, c.q_lora_rank];
    const D = qkHeadDim(c);
    const eps = c.rms_norm_eps;
    const scale = softmaxScale(c);
    const src = this.source;
    const lin = (name: Parameters<typeof sliceRanges>[1], x: Float64Array) => {
      const { rows, cols } = sliceRanges(full, name, this.heads);
      return linearStream(src, name, rows, cols, x, T);
    };
    probe.scalar('softmax_scale', scale);
    probe.scalar('has_context', false);
    probe.scalar('causal', true);
    probe.scalar('num_tokens', T);
    probe.scalar('num_context_tokens', 0);
    probe.scalar('lse_base', 'e');
    probe.scalar('rope_style', c.rope_interleave ? 'gptj' : 'neox');

    const emb = Float64Array.from(input.embeddings); // [T,H]
    const hidden_in = rmsNormRows(emb, H, src.norm('input_layernorm'), eps);
    probe.tap('hidden_in', host([T, H], hidden_in));
    const q_c_raw = probe.tap('q_c_raw', host([T, Lq], lin('q_a_proj', hidden_in))).data as Float64Array; // [T,Lq]
    const kv_lora = probe.tap('kv_lora', host([T, L + R], lin('kv_a_proj_with_mqa', hidden_in))).data as Float64Array; // [T,L+R]
    const q_c = rmsNormRows(q_c_raw, Lq, src.norm('q_a_layernorm'), eps); // [T,Lq]
    probe.tap('q_c', host([T, Lq], q_c));
    const q_full = probe.tap('q_full_prerope', host([T, N, D], lin('q_b_proj', q_c))).data as Float64Array; // [T,N,D]
    const q_nope = probe.tap('q_nope', host([T, N, P], sliceCols(q_full, D, 0, P))).data as Float64Array; // [T,N,P]
    const q_pe_raw = probe.tap('q_pe_raw', host([T, N, R], sliceCols(q_full, D, P, R))).data as Float64Array; // [T,N,R]
    const kv_c = probe.tap('kv_c', host([T, L], sliceCols(kv_lora, L + R, 0, L))).data as Float64Array; // [T,L]
    const k_pe_raw = probe.tap('k_pe_raw', host([T, R], sliceCols(kv_lora, L + R, L, R))).data as Float64Array; // [T,R]
    const kv_c_normed = rmsNormRows(kv_c, L, src.norm('kv_a_layernorm'), eps); // [T,L]
    probe.tap('kv_c_normed', host([T, L], kv_c_normed));
    const tables = ropeTables(c, input.positions);
    const style = c.rope_interleave ? 'gptj' : 'neox';
    const q_pe = probe.tap('q_pe', host([T, N, R], ropeRows(q_pe_raw, T, N, R, tables, style))).data as Float64Array; // [T,N,R]
    const k_pe = probe.tap('k_pe', host([T, R], ropeRows(k_pe_raw, T, 1, R, tables, style))).data as Float64Array; // [T,R]
    const q = probe.tap('q', host([T, N, D], concatCols(q_nope, P, q_pe, R))).data as Float64Array; // [T,N,D]
    probe.tap('kv_cache', host([S, L + R], concatCols(kv_c_normed, L, k_pe, R))); // [S,L+R]

    // kv_b_proj of this slice, held whole (59 MB on GLM-5): W [N·(P+V), L].
    const kvb = sliceRanges(full, 'kv_b_proj', this.heads);
    const W = new Float32Array(N * (P + V) * L);
    src.block('kv_b_proj', kvb.rows, kvb.cols, 'out_in', W);
    const W_UK_T = new Float32Array(N * P * L); // [N,P,L]: W_UK_T[h,p,l] = W[h(P+V)+p, l]
    const W_UV = new Float32Array(N * L * V); // [N,L,V]: W_UV[h,l,v] = W[h(P+V)+P+v, l]
    for (let h = 0; h < N; h++) {
      W_UK_T.set(W.subarray(h * (P + V) * L, (h * (P + V) + P) * L), h * P * L);
      for (let v = 0; v < V; v++) for (let l = 0; l < L; l++) W_UV[(h * L + l) * V + v] = W[(h * (P + V) + P + v) * L + l]!;
    }
    probe.tap('W_UK_T', host([N, P, L], W_UK_T));
    probe.tap('W_UV', host([N, L, V], W_UV));

    const kv_nope = new Float64Array(S * N * (P + V)); // [S,N,P+V]
    gemmNT(kv_c_normed, S, L, W, N * (P + V), kv_nope, N * (P + V), 0);
    probe.tap('kv_nope', host([S, N, P + V], kv_nope));
    const k_nope = probe.tap('k_nope', host([S, N, P], sliceCols(kv_nope, P + V, 0, P))).data as Float64Array; // [S,N,P]
    const v = probe.tap('v', host([S, N, V], sliceCols(kv_nope, P + V, P, V))).data as Float64Array; // [S,N,V]
    const k_pe_heads = new Float64Array(S * N * R); // [S,N,R]: k_pe broadcast over heads
    for (let s = 0; s < S; s++) for (let h = 0; h < N; h++) k_pe_heads.set(k_pe.subarray(s * R, s * R + R), (s * N + h) * R);
    const k = probe.tap('k', host([S, N, D], concatCols(k_nope, P, k_pe_heads, R))).data as Float64Array; // [S,N,D]

    // Absorbed query, for the MQA-only stages: ql_nope[t,h,:] = q_nope[t,h,:]·W_UK_T[h].
    const ql_nope = new Float64Array(T * N * L); // [T,N,L]
    for (let t = 0; t < T; t++) for (let h = 0; h < N; h++) {
      for (let p = 0; p < P; p++) {
        const a = q_nope[(t * N + h) * P + p]!;
        const row = (h * P + p) * L;
        const o = (t * N + h) * L;
        for (let l = 0; l < L; l++) ql_nope[o + l] = ql_nope[o + l]! + a * W_UK_T[row + l]!;
      }
    }
    probe.tap('ql_nope', host([T, N, L], ql_nope));
    probe.tap('mqa_q', host([T, N, L + R], concatCols(ql_nope, L, q_pe, R)));

    const logits = new Float64Array(N * T * S); // [N,T,S]
    for (let h = 0; h < N; h++) for (let t = 0; t < T; t++) for (let s = 0; s < S; s++) {
      let acc = 0;
      for (let e = 0; e < D; e++) acc += q[(t * N + h) * D + e]! * k[(s * N + h) * D + e]!;
      logits[(h * T + t) * S + s] = acc * scale;
    }
    probe.tap('logits', host([N, T, S], logits));
    const { probs, lse } = causalSoftmax(logits, N, T, S, input.positions, input.positions);
    probe.tap('attn_probs', host([N, T, S], probs));
    probe.tap('lse', host([N, T], lse));

    const attn_out_latent = new Float64Array(T * N * L); // [T,N,L]
    const heads = new Float64Array(T * N * V); // [T,N,V]
    for (let h = 0; h < N; h++) for (let t = 0; t < T; t++) for (let s = 0; s < S; s++) {
      const p = probs[(h * T + t) * S + s]!;
      if (p === 0) continue;
      const ol = (t * N + h) * L;
      const ov = (t * N + h) * V;
      for (let l = 0; l < L; l++) attn_out_latent[ol + l] = attn_out_latent[ol + l]! + p * kv_c_normed[s * L + l]!;
      for (let j = 0; j < V; j++) heads[ov + j] = heads[ov + j]! + p * v[(s * N + h) * V + j]!;
    }
    probe.tap('attn_out_latent', host([T, N, L], attn_out_latent));
    probe.tap('attn_out_heads', host([T, N, V], heads));
    probe.tap('attn_out', host([T, N * V], heads));
    return probe.tap('o_proj_out', host([T, H], lin('o_proj', heads))).data as Float64Array; // [T,H]
  }

  dispose(): void {}
}
