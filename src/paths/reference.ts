import { qkHeadDim, softmaxScale } from '../core/model/config';
import type { HostProbe, HostTensor } from '../core/probes/probe';
import { NULL_PROBE } from '../core/probes/probe';
import type { HeadSlice, LinearName, WeightSource } from '../core/weights/layer';
import { sliceRanges, slicedConfig } from '../core/weights/layer';
import type { KernelOptions, MlaBackend, PieceInput } from './backend';
import type { KvBViews } from './reference-absorbed';
import { absorbedQuery, kvBViews } from './reference-absorbed';
import type { Gemm64 } from './reference-gemm';
import { JS_GEMM, widen } from './reference-gemm';
import { referenceAttention } from './reference-heads';
import type { History } from './reference-host';
import { cat, host } from './reference-host';
import { linearStream } from './reference-math';
import type { ReferenceWeights } from './reference-pre-attention';
import { referencePreAttention } from './reference-pre-attention';

/**
 * Textbook MLA in float64 plain TypeScript (Hugging Face eager: expanded K/V per head, one softmax
 * over every key), plus float64 versions of what the engine paths compute on the way (context
 * chunks and their merges, KV splits, the absorbed W_UK_T/ql_nope/latent output), so that every
 * stage of every path has a float64 value to be judged against. Weights stream from the source.
 */
export class ReferenceBackend implements MlaBackend<HostTensor> {
  readonly name = 'reference' as const;
  private readonly history = new Map<string, History>();
  private absorbed: KvBViews | null = null;
  /** kv_b_proj widened to float64 [N(P+V), L], for kv_nope and (its W_UK_T rows in place) ql_nope. */
  private kvB64: Float64Array | null = null;
  private weightsTapped = false;
  /** What the pre-attention reads: this slice's linears and kv_b_proj (read once, shared with the absorbed views). */
  private readonly weights: ReferenceWeights;

  constructor(
    private readonly source: WeightSource,
    private readonly heads: HeadSlice,
    private readonly kernels: KernelOptions,
    /** The float64 GEMM every product goes through (reference-gemm.ts); plain loops on this thread by default. */
    private readonly gemm: Gemm64 = JS_GEMM,
  ) {
    this.weights = { source, lin: (name, x, T) => this.lin(name, x, T), kvB64: () => (this.kvB64 ??= widen(this.kvb().W)), gemm };
  }

  private get c() {
    return slicedConfig(this.source.config, this.heads);
  }

  private lin(name: LinearName, x: Float64Array, T: number): Float64Array {
    const { rows, cols } = sliceRanges(this.source.config, name, this.heads);
    return linearStream(this.source, name, rows, cols, x, T, this.gemm);
  }

  /** kv_b_proj of this slice and its absorbed views, read once. */
  private kvb(): KvBViews {
    return (this.absorbed ??= kvBViews(this.source, this.heads, this.c));
  }

  async fill(piece: PieceInput): Promise<void> {
    this.append(piece, NULL_PROBE, false);
  }

  /**
   * Pre-attention of the piece (the query side only when `queries`: a cache fill needs just the
   * latent and K/V); its latent rows and expanded K/V appended to the request's history.
   */
  private append(piece: PieceInput, probe: HostProbe, queries = true) {
    const { q, q_nope, q_pe, kv_c_normed, k, v, rows } = referencePreAttention(this.c, this.weights, piece, probe, queries);
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
    absorbedQuery(probe, q_nope, q_pe, this.weights.kvB64(), [T, N, P, V, L, R], this.gemm); // ql_nope [T,N,L], mqa_q [T,N,L+R]
    const attn_out = referenceAttention(piece, probe, this.kernels, q, hist, { N, T, S, V, L, R, D, scale }, this.gemm); // [T,N,V]
    return probe.tap('o_proj_out', host([T, H], this.lin('o_proj', attn_out, T))).data as Float64Array; // [T,H]
  }

  /** The absorbed weights, once per run (they do not change between pieces). */
  private tapWeights(probe: HostProbe, N: number, P: number, L: number, V: number, W_UK_T: Float32Array, W_UV: Float32Array): void {
    probe.tap('W_UK_T', host([N, P, L], W_UK_T));
    probe.tap('W_UV', host([N, L, V], W_UV));
    this.weightsTapped = true;
  }

  dispose(): void {
    this.history.clear();
    this.kvB64 = null;
  }
}
