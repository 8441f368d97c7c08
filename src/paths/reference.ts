import { qkHeadDim, softmaxScale } from '../core/model/config';
import { ropeTables } from '../core/model/rope';
import type { HostProbe, HostTensor } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { HeadSlice, WeightSource } from '../core/weights/layer';
import { sliceRanges, slicedConfig } from '../core/weights/layer';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import { attendColumns, lseViolations, mergeStates } from './reference-attention';
import { concatCols, gemmNT, linearStream, rmsNormRows, ropeRows, sliceCols } from './reference-math';
import { splitRanges } from './splits';

const host = (shape: number[], data: Float64Array | Float32Array): HostTensor => ({ shape, data });
const cat = (a: Float64Array, b: Float64Array) => {
  const c = new Float64Array(a.length + b.length);
  c.set(a);
  c.set(b, a.length);
  return c;
};

interface History {
  latent: Float64Array;
  k: Float64Array;
  v: Float64Array;
  latentOnly: Float64Array;
}

/**
 * Textbook MLA in float64 plain TypeScript (Hugging Face eager: expanded K/V per head, one softmax
 * over every key), plus float64 versions of what the engine paths compute on the way (context
 * chunks and their merges, KV splits, the absorbed W_UK_T/ql_nope/latent output), so that every
 * stage of every path has a float64 value to be judged against. Weights stream from the source.
 */
export class ReferenceBackend implements MlaBackend<HostTensor> {
  readonly name = 'reference' as const;
  private readonly history = new Map<string, History>();
  private absorbed: { W: Float32Array; W_UK_T: Float32Array; W_UV: Float32Array } | null = null;
  private weightsTapped = false;

  constructor(
    private readonly source: WeightSource,
    private readonly heads: HeadSlice,
    private readonly kernels: KernelOptions,
  ) {}

  private get c() {
    return slicedConfig(this.source.config, this.heads);
  }

  private lin(name: Parameters<typeof sliceRanges>[1], x: Float64Array, T: number): Float64Array {
    const { rows, cols } = sliceRanges(this.source.config, name, this.heads);
    return linearStream(this.source, name, rows, cols, x, T);
  }

  /** kv_b_proj of this slice and its absorbed views, W_UK_T[h,p,l] = W[h(P+V)+p, l], W_UV[h,l,v] = W[h(P+V)+P+v, l]. */
  private kvb() {
    if (this.absorbed) return this.absorbed;
    const { num_attention_heads: N, qk_nope_head_dim: P, v_head_dim: V, kv_lora_rank: L } = this.c;
    const { rows, cols } = sliceRanges(this.source.config, 'kv_b_proj', this.heads);
    const W = new Float32Array(N * (P + V) * L);
    this.source.block('kv_b_proj', rows, cols, 'out_in', W);
    const W_UK_T = new Float32Array(N * P * L);
    const W_UV = new Float32Array(N * L * V);
    for (let h = 0; h < N; h++) {
      W_UK_T.set(W.subarray(h * (P + V) * L, (h * (P + V) + P) * L), h * P * L);
      for (let v = 0; v < V; v++) for (let l = 0; l < L; l++) W_UV[(h * L + l) * V + v] = W[(h * (P + V) + P + v) * L + l]!;
    }
    return (this.absorbed = { W, W_UK_T, W_UV });
  }

  async fill(piece: PieceInput): Promise<void> {
    this.append(piece, NULL_PROBE, false);
  }

  /**
   * Pre-attention of the piece (the query side only when `queries`: a cache fill needs just the
   * latent and K/V); its latent rows and expanded K/V appended to the request's history.
   */
  private append(piece: PieceInput, probe: HostProbe, queries = true) {
    const c = this.c;
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
    const src = this.source;
    const hidden_in = probe.tap(
      'hidden_in',
      host([T, H], rmsNormRows(Float64Array.from(piece.embeddings), H, src.norm('input_layernorm'), c.rms_norm_eps)),
    ).data as Float64Array;
    const q_c_raw = queries
      ? (probe.tap('q_c_raw', host([T, Lq], this.lin('q_a_proj', hidden_in, T))).data as Float64Array)
      : new Float64Array(0); // [T,Lq]
    const kv_lora = probe.tap('kv_lora', host([T, L + R], this.lin('kv_a_proj_with_mqa', hidden_in, T))).data as Float64Array; // [T,L+R]
    const q_c = queries
      ? (probe.tap('q_c', host([T, Lq], rmsNormRows(q_c_raw, Lq, src.norm('q_a_layernorm'), c.rms_norm_eps))).data as Float64Array)
      : q_c_raw;
    const q_full = queries
      ? (probe.tap('q_full_prerope', host([T, N, D], this.lin('q_b_proj', q_c, T))).data as Float64Array)
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
    const { W } = this.kvb();
    const kv_nope = new Float64Array(T * N * (P + V)); // [T,N,P+V]
    gemmNT(kv_c_normed, T, L, W, N * (P + V), kv_nope, N * (P + V), 0);
    probe.tap('kv_nope', host([T, N, P + V], kv_nope));
    const k_nope = probe.tap('k_nope', host([T, N, P], sliceCols(kv_nope, P + V, 0, P))).data as Float64Array;
    const v = probe.tap('v', host([T, N, V], sliceCols(kv_nope, P + V, P, V))).data as Float64Array; // [T,N,V]
    const k_pe_heads = new Float64Array(T * N * R); // k_pe broadcast over heads
    for (let t = 0; t < T; t++) for (let h = 0; h < N; h++) k_pe_heads.set(k_pe.subarray(t * R, t * R + R), (t * N + h) * R);
    const k = probe.tap('k', host([T, N, D], concatCols(k_nope, P, k_pe_heads, R))).data as Float64Array; // [T,N,D]
    const rows = concatCols(kv_c_normed, L, k_pe, R); // [T,L+R]
    const old = this.history.get(piece.request);
    this.history.set(
      piece.request,
      old
        ? { latent: cat(old.latent, rows), k: cat(old.k, k), v: cat(old.v, v), latentOnly: cat(old.latentOnly, kv_c_normed) }
        : { latent: rows, k, v, latentOnly: kv_c_normed },
    );
    return { q, q_nope, q_pe };
  }

  async step(piece: PieceInput, probe: HostProbe): Promise<Float64Array> {
    const c = this.c;
    const T = piece.positions.length;
    const [H, N, P, R, V, L, D] = [
      c.hidden_size,
      c.num_attention_heads,
      c.qk_nope_head_dim,
      c.qk_rope_head_dim,
      c.v_head_dim,
      c.kv_lora_rank,
      qkHeadDim(c),
    ];
    const scale = softmaxScale(c);
    for (const [name, value] of [
      ['softmax_scale', scale],
      ['has_context', piece.start > 0],
      ['causal', true],
      ['num_tokens', T],
      ['num_context_tokens', piece.start],
      ['route', piece.route],
      ['lse_base', 'e'],
      ['rope_style', c.rope_interleave ? 'gptj' : 'neox'],
    ] as const)
      probe.scalar(name, value);
    if (piece.logitsRows) probe.scalar('logits_rows', piece.logitsRows.join(','));
    const { q, q_nope, q_pe } = this.append(piece, probe);
    const hist = this.history.get(piece.request)!;
    const S = hist.k.length / (N * D);
    probe.tap('kv_cache', host([S, L + R], hist.latent));
    const { W_UK_T, W_UV } = this.kvb();
    if (!this.weightsTapped && probe.enabled) this.tapWeights(probe, N, P, L, V, W_UK_T, W_UV);
    const ql_nope = new Float64Array(T * N * L); // [T,N,L] = q_nope[t,h,:]·W_UK_T[h]
    for (let t = 0; t < T; t++)
      for (let h = 0; h < N; h++)
        for (let p = 0; p < P; p++) {
          const a = q_nope[(t * N + h) * P + p]!;
          const o = (t * N + h) * L;
          const row = (h * P + p) * L;
          for (let l = 0; l < L; l++) ql_nope[o + l] = ql_nope[o + l]! + a * W_UK_T[row + l]!;
        }
    probe.tap('ql_nope', host([T, N, L], ql_nope));
    probe.tap('mqa_q', host([T, N, L + R], concatCols(ql_nope, L, q_pe, R)));
    const logits = new Float64Array(N * T * S); // [N,T,S] over every key of the request
    for (let h = 0; h < N; h++)
      for (let t = 0; t < T; t++)
        for (let s = 0; s < S; s++) {
          let acc = 0;
          for (let e = 0; e < D; e++) acc += q[(t * N + h) * D + e]! * hist.k[(s * N + h) * D + e]!;
          logits[(h * T + t) * S + s] = acc * scale;
        }
    const rows = piece.logitsRows ?? Array.from({ length: T }, (_, t) => t); // the sampled query tokens (schedule.logits_rows), else all
    const r = rows.length;
    const sampled = piece.logitsRows ? new Float64Array(N * r * S) : logits; // [N,r,S]
    if (piece.logitsRows)
      for (let h = 0; h < N; h++)
        rows.forEach((t, i) => sampled.set(logits.subarray((h * T + t) * S, (h * T + t + 1) * S), (h * r + i) * S));
    if (r) probe.tap('logits', host([N, r, S], sampled));
    const causal = (t: number, s: number) => s <= piece.start + t; // key index ≤ query index
    const keys = (t: number) => piece.start + t + 1;
    const full = attendColumns(logits, N, T, S, 0, S, causal, hist.v, V, false);
    if (r && probe.wants('attn_probs')) {
      const probs = new Float64Array(N * r * S);
      for (let h = 0; h < N; h++)
        rows.forEach((t, i) => {
          for (let s = 0; s <= piece.start + t; s++)
            probs[(h * r + i) * S + s] = Math.exp(sampled[(h * r + i) * S + s]! - full.lse[h * T + t]!);
        });
      probe.tap('attn_probs', host([N, r, S], probs));
    }
    if (piece.chunks.length) this.context(piece, probe, logits, hist, N, T, S, V, L, R);
    if (this.kernels.kvSplits > 1) {
      const ranges = splitRanges(S, this.kernels.kvSplits);
      const split = new Float64Array(T * N * ranges.length); // [T,N,splits]
      ranges.forEach(([a, b], j) => {
        const r = attendColumns(logits, N, T, S, a, b, causal, hist.latentOnly, 0, true); // E = 0: the split's LSE only
        for (let h = 0; h < N; h++) for (let t = 0; t < T; t++) split[(t * N + h) * ranges.length + j] = r.lse[h * T + t]!;
      });
      probe.tap('split_lse', host([T, N, ranges.length], split));
    }
    probe.tap('lse', host([N, T], full.lse));
    probe.check('lse', 'lse_bounds', lseViolations(full, N, T, keys));
    probe.tap('attn_out_latent', host([T, N, L], attendColumns(logits, N, T, S, 0, S, causal, hist.latentOnly, L, true).out));
    probe.tap('attn_out_heads', host([T, N, V], full.out));
    probe.tap('attn_out', host([T, N * V], full.out));
    return probe.tap('o_proj_out', host([T, H], this.lin('o_proj', full.out, T))).data as Float64Array; // [T,H]
  }

  /** forward_mha's context path in float64: new tokens, chunks, running merges (same ranges as the engine). */
  private context(
    piece: PieceInput,
    probe: HostProbe,
    logits: Float64Array,
    hist: History,
    N: number,
    T: number,
    S: number,
    V: number,
    L: number,
    R: number,
  ): void {
    const own = attendColumns(logits, N, T, S, piece.start, S, (t, s) => s <= piece.start + t, hist.v, V, false);
    probe.tap('suffix_output', host([T, N, V], own.out));
    probe.tap('suffix_lse', host([N, T], own.lse));
    probe.check(
      'suffix_lse',
      'lse_bounds',
      lseViolations(own, N, T, (t) => t + 1),
    );
    let running = null as ReturnType<typeof attendColumns> | null;
    piece.chunks.forEach(([a, b], i) => {
      probe.tap('ctx_workspace', host([b - a, L + R], hist.latent.slice(a * (L + R), b * (L + R))), undefined, i);
      const part = attendColumns(logits, N, T, S, a, b, null, hist.v, V, false, this.kernels.emptyLse === '+inf' ? Infinity : -Infinity);
      probe.tap('chunk_output', host([T, N, V], part.out), undefined, i);
      probe.tap('chunk_lse', host([N, T], part.lse), undefined, i);
      if (b > a)
        probe.check(
          'chunk_lse',
          'lse_bounds',
          lseViolations(part, N, T, () => b - a),
          i,
        );
      running = running ? mergeStates(running, part, N, T, V) : part;
      probe.tap('context_output', host([T, N, V], running.out), undefined, i);
      probe.tap('context_lse', host([N, T], running.lse), undefined, i);
    });
  }

  /** The absorbed weights, once per run (they do not change between pieces). */
  private tapWeights(probe: HostProbe, N: number, P: number, L: number, V: number, W_UK_T: Float32Array, W_UV: Float32Array): void {
    probe.tap('W_UK_T', host([N, P, L], W_UK_T));
    probe.tap('W_UV', host([N, L, V], W_UV));
    this.weightsTapped = true;
  }

  dispose(): void {
    this.history.clear();
  }
}
