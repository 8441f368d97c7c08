/** The float64 reference's versions of the MQA path's absorbed stages: W_UK_T/W_UV, ql_nope/mqa_q and the KV splits' LSEs. */
import type { MlaConfig } from '../core/model/config';
import type { HostProbe } from '../core/probes/probe';
import type { HeadSlice, WeightSource } from '../core/weights/layer';
import { sliceRanges } from '../core/weights/layer';
import type { RowLimit, Scores } from './reference-attention';
import { attendColumns } from './reference-attention';
import type { Gemm64 } from './reference-gemm';
import { host } from './reference-host';
import { concatCols } from './reference-math';
import { splitRanges } from './splits';

/** kv_b_proj of a head slice [N(P+V), L] and its absorbed views W_UK_T [N,P,L], W_UV [N,L,V]. */
export interface KvBViews {
  W: Float32Array;
  W_UK_T: Float32Array;
  W_UV: Float32Array;
}

/** kv_b_proj of this slice and its absorbed views, W_UK_T[h,p,l] = W[h(P+V)+p, l], W_UV[h,l,v] = W[h(P+V)+P+v, l]. */
export function kvBViews(source: WeightSource, heads: HeadSlice, c: MlaConfig): KvBViews {
  const { num_attention_heads: N, qk_nope_head_dim: P, v_head_dim: V, kv_lora_rank: L } = c;
  const { rows, cols } = sliceRanges(source.config, 'kv_b_proj', heads);
  const W = new Float32Array(N * (P + V) * L);
  source.block('kv_b_proj', rows, cols, 'out_in', W);
  const W_UK_T = new Float32Array(N * P * L);
  const W_UV = new Float32Array(N * L * V);
  for (let h = 0; h < N; h++) {
    W_UK_T.set(W.subarray(h * (P + V) * L, (h * (P + V) + P) * L), h * P * L);
    for (let v = 0; v < V; v++) for (let l = 0; l < L; l++) W_UV[(h * L + l) * V + v] = W[(h * (P + V) + P + v) * L + l]!;
  }
  return { W, W_UK_T, W_UV };
}

/**
 * ql_nope [T,N,L] = q_nope[t,h,:]·W_UK_T[h] and mqa_q [T,N,L+R] = [ql_nope | q_pe], recorded: one GEMM
 * a head, W_UK_T[h] [P,L] read in place from kv_b_proj widened to float64 (W64 [N(P+V), L]).
 */
export function absorbedQuery(
  probe: HostProbe,
  q_nope: Float64Array,
  q_pe: Float64Array,
  W64: Float64Array,
  [T, N, P, V, L, R]: readonly [number, number, number, number, number, number],
  gemm: Gemm64,
): void {
  const ql_nope = new Float64Array(T * N * L); // [T,N,L] = q_nope[t,h,:]·W_UK_T[h]
  for (let h = 0; h < N; h++)
    gemm.dgemm(
      false,
      false,
      T,
      L,
      P,
      1,
      q_nope.subarray(h * P),
      N * P,
      W64.subarray(h * (P + V) * L),
      L,
      0,
      ql_nope.subarray(h * L),
      N * L,
    );
  probe.tap('ql_nope', host([T, N, L], ql_nope));
  probe.tap('mqa_q', host([T, N, L + R], concatCols(ql_nope, L, q_pe, R)));
}

/** Each KV split's LSE over the group's logits under the causal mask (same ranges as the engine), into split [T,N,splits]. */
export function splitLse(sc: Scores, split: Float64Array, kvSplits: number, causal: RowLimit, gemm: Gemm64): void {
  const { h0, G, N, T, S } = sc;
  const ranges = splitRanges(S, kvSplits);
  const stats = { lse: new Float64Array(N * T), max: new Float64Array(N * T) };
  ranges.forEach(([a, b], j) => {
    attendColumns(sc, a, b, causal, stats, [], gemm); // no values: the split's LSE only
    for (let h = h0; h < h0 + G; h++) for (let t = 0; t < T; t++) split[(t * N + h) * ranges.length + j] = stats.lse[h * T + t]!;
  });
}
