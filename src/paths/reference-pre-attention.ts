/** The float64 reference's projections before attention: norms, q/kv projections, RoPE, and K/V expanded per head. */
import type { MlaConfig } from '../core/model/config';
import { qkHeadDim } from '../core/model/config';
import { ropeTables } from '../core/model/rope';
import type { HostProbe } from '../core/probes/probe';
import type { LinearName, WeightSource } from '../core/weights/layer';
import type { PieceInput } from './backend';
import { host } from './reference-host';
import type { Gemm64 } from './reference-gemm';
import { concatCols, rmsNormRows, ropeRows, sliceCols } from './reference-math';

/** What the reference's attention reads of one piece: the queries and the rows it appends to the request's history. */
export interface ReferencePre {
  q: Float64Array; // [T,N,D]
  q_nope: Float64Array; // [T,N,P]
  q_pe: Float64Array; // [T,N,R]
  kv_c_normed: Float64Array; // [T,L]
  k: Float64Array; // [T,N,D]
  v: Float64Array; // [T,N,V]
  rows: Float64Array; // [T,L+R]
}

/**
 * The weights the projections read: a linear of this head slice, kv_b_proj's [N(P+V), L] rows widened
 * to float64 (read when first asked for), and the GEMM they go through.
 */
export interface ReferenceWeights {
  source: WeightSource;
  lin: (name: LinearName, x: Float64Array, T: number) => Float64Array;
  kvB64: () => Float64Array;
  gemm: Gemm64;
}

/**
 * Pre-attention of the piece, every stage probed (the query side only when `queries`: a cache fill
 * needs just the latent and K/V).
 */
export function referencePreAttention(
  c: MlaConfig,
  w: ReferenceWeights,
  piece: PieceInput,
  probe: HostProbe,
  queries: boolean,
): ReferencePre {
  const T = piece.positions.length;
  const [H, N, P, R, V, L, Lq, D] = [
    c.hidden_size,
    c.num_attention_heads,
    c.qk_nope_head_dim,
    c.qk_rope_head_dim,
    c.v_head_dim,
    c.kv_lora_rank,
    c.q_lora_rank,
    qkHeadDim(c),
  ];
  const src = w.source;
  const hidden_in = probe.tap(
    'hidden_in',
    host([T, H], rmsNormRows(Float64Array.from(piece.embeddings), H, src.norm('input_layernorm'), c.rms_norm_eps)),
  ).data as Float64Array;
  const q_c_raw = queries
    ? (probe.tap('q_c_raw', host([T, Lq], w.lin('q_a_proj', hidden_in, T))).data as Float64Array)
    : new Float64Array(0); // [T,Lq]
  const kv_lora = probe.tap('kv_lora', host([T, L + R], w.lin('kv_a_proj_with_mqa', hidden_in, T))).data as Float64Array; // [T,L+R]
  const q_c = queries
    ? (probe.tap('q_c', host([T, Lq], rmsNormRows(q_c_raw, Lq, src.norm('q_a_layernorm'), c.rms_norm_eps))).data as Float64Array)
    : q_c_raw;
  const q_full = queries
    ? (probe.tap('q_full_prerope', host([T, N, D], w.lin('q_b_proj', q_c, T))).data as Float64Array)
    : new Float64Array(T * N * D); // [T,N,D]
  const q_nope = probe.tap('q_nope', host([T, N, P], sliceCols(q_full, D, 0, P))).data as Float64Array; // [T,N,P]
  const q_pe_raw = probe.tap('q_pe_raw', host([T, N, R], sliceCols(q_full, D, P, R))).data as Float64Array;
  const kv_c = probe.tap('kv_c', host([T, L], sliceCols(kv_lora, L + R, 0, L))).data as Float64Array; // [T,L]
  const k_pe_raw = probe.tap('k_pe_raw', host([T, R], sliceCols(kv_lora, L + R, L, R))).data as Float64Array;
  const kv_c_normed = probe.tap('kv_c_normed', host([T, L], rmsNormRows(kv_c, L, src.norm('kv_a_layernorm'), c.rms_norm_eps)))
    .data as Float64Array;
  const tables = ropeTables(c, piece.positions);
  const style = c.rope_interleave ? 'gptj' : 'neox';
  const q_pe = probe.tap('q_pe', host([T, N, R], ropeRows(q_pe_raw, T, N, R, tables, style))).data as Float64Array; // [T,N,R]
  const k_pe = probe.tap('k_pe', host([T, R], ropeRows(k_pe_raw, T, 1, R, tables, style))).data as Float64Array; // [T,R]
  const q = probe.tap('q', host([T, N, D], concatCols(q_nope, P, q_pe, R))).data as Float64Array; // [T,N,D]
  const kv_nope = new Float64Array(T * N * (P + V)); // [T,N,P+V] = kv_c_normed·W_kv_bᵀ
  w.gemm.dgemm(false, true, T, N * (P + V), L, 1, kv_c_normed, L, w.kvB64(), L, 0, kv_nope, N * (P + V));
  probe.tap('kv_nope', host([T, N, P + V], kv_nope));
  const k_nope = probe.tap('k_nope', host([T, N, P], sliceCols(kv_nope, P + V, 0, P))).data as Float64Array;
  const v = probe.tap('v', host([T, N, V], sliceCols(kv_nope, P + V, P, V))).data as Float64Array; // [T,N,V]
  const k_pe_heads = new Float64Array(T * N * R); // k_pe broadcast over heads
  for (let t = 0; t < T; t++) for (let h = 0; h < N; h++) for (let i = 0; i < R; i++) k_pe_heads[(t * N + h) * R + i] = k_pe[t * R + i]!;
  const k = probe.tap('k', host([T, N, D], concatCols(k_nope, P, k_pe_heads, R))).data as Float64Array; // [T,N,D]
  const rows = concatCols(kv_c_normed, L, k_pe, R); // [T,L+R]
  return { q, q_nope, q_pe, kv_c_normed, k, v, rows };
}
