/**
 * Whether `reference: auto` runs the float64 reference: an estimate of its wall time from the GEMM it
 * will multiply through (host dgemm, a worker pool, or the plain loops) and of the memory it holds.
 */
import { availableParallelism, totalmem } from 'node:os';
import type { MlaConfig } from '../../core/model/config';
import { qkHeadDim } from '../../core/model/config';
import type { HeadSlice, LinearName } from '../../core/weights/layer';
import { LINEAR_NAMES, sliceRanges } from '../../core/weights/layer';
import { parseBlasRequest } from '../../devices/kernels/host-blas';
import type { GemmPlan } from '../../paths/reference-gemm-open';
import { planReferenceGemm } from '../../paths/reference-gemm-open';
import type { ReferenceMode } from '../scenario/scenario';

/**
 * Rates of the estimate, measured on a 2-core AVX-512 VM (bench/reference/results.md) and rounded down:
 * cblas_dgemm per thread; the plain loops per thread (the pool's workers each); the softmax per visible
 * logit (max, one exp, sum, P) per thread (Math.exp alone is 14 ns on the VM's EPYC, 28 on the H200
 * machine's Xeon) and, on a pool, the caller's copies of its blocks in and out; fresh memory written
 * (first touch); weight elements read from the source and widened.
 */
export const REFERENCE_RATES = { blasMacs: 8e9, jsMacs: 0.6e9, elements: 3e7, copies: 5e8, bytes: 2e9, weights: 1e8 };

/** `reference: auto` runs the reference when it is estimated within this many seconds... */
export const REFERENCE_AUTO_MAX_SECONDS = 60;
/** ...and within this share of the machine's memory (the paths and the comparison hold the rest). */
export const REFERENCE_AUTO_MEMORY_SHARE = 0.5;

/** A piece as the estimate sees it: its tokens, every key it attends to, and its context chunks. */
export type CostPiece = {
  kind: string;
  ids: readonly number[];
  historySlots: ArrayLike<number>;
  chunks?: readonly (readonly [number, number])[];
  logitsRows?: readonly number[];
};

export interface ReferenceCost {
  /** Multiply-adds through the GEMM. */
  macs: number;
  /** Visible logits the softmaxes pass over (each a max, an exp, a sum and a division). */
  elements: number;
  /** Float64 bytes the reference records and holds until the comparison. */
  bytes: number;
  /** Weight elements read (each linear once per piece, kv_b_proj once). */
  weights: number;
}

const size = (c: MlaConfig, name: LinearName, heads: HeadSlice) => {
  const { rows, cols } = sliceRanges(c, name, heads);
  return (rows[1] - rows[0]) * (cols[1] - cols[0]);
};

/**
 * What the float64 reference computes over a schedule for a head slice: every token's projections
 * (a cached token only its latent and K/V), ql_nope, and each piece's logits (all keys when `scores`
 * are recorded, else the keys each row sees), P·V and the latent output over the visible keys, the
 * context path's chunks; the records it holds (per token, the KV history, the logits and attn_probs).
 */
export function referenceCost(c: MlaConfig, heads: HeadSlice, pieces: readonly CostPiece[], scores = true, kvSplits = 1): ReferenceCost {
  const [N, D, P, R, V, L, H, Lq] = [
    heads.count,
    qkHeadDim(c),
    c.qk_nope_head_dim,
    c.qk_rope_head_dim,
    c.v_head_dim,
    c.kv_lora_rank,
    c.hidden_size,
    c.q_lora_rank,
  ];
  const all = LINEAR_NAMES.reduce((n, name) => n + size(c, name, heads), 0);
  const kvOnly = size(c, 'kv_a_proj_with_mqa', heads) + size(c, 'kv_b_proj', heads);
  const perToken = 2 * H + 2 * Lq + 3 * (L + R) + N * (3 * D + 3 * P + 3 * R + 3 * V + 3 * L); // doubles recorded per token
  let [macs, elements, bytes, weights] = [0, 0, 8 * size(c, 'kv_b_proj', heads), size(c, 'kv_b_proj', heads)]; // kv_b_proj widened, held
  for (const p of pieces) {
    const T = p.ids.length;
    const S = p.historySlots.length;
    const start = S - T;
    bytes += 8 * S * N * (D + V); // the request's K/V history
    if (p.kind === 'cached') {
      macs += T * kvOnly;
      weights += size(c, 'kv_a_proj_with_mqa', heads);
      continue;
    }
    weights += all - size(c, 'kv_b_proj', heads);
    const seen = Math.min(S, start + (T + 128) / 2); // keys a row's 128-row block multiplies, on average
    const ctx = p.chunks?.length ? 2 * p.chunks.length + 1 : 0; // context arrays [T,N,V]: parts, merges, the new tokens'
    const r = p.logitsRows?.length ?? T;
    macs += T * (all + N * P * L) + N * T * (scores ? S : seen) * D + N * T * seen * (V + L) + (ctx ? N * T * (start + T / 2) * V : 0);
    elements += N * T * (start + T / 2) * (1 + (kvSplits > 1 ? 1 : 0) + (ctx ? 1 : 0));
    bytes += 8 * (T * perToken + ctx * T * N * V + (scores ? 2 * N * r * S : 0));
  }
  return { macs, elements, bytes, weights };
}

/** Seconds the reference takes for a cost through a GEMM, at REFERENCE_RATES. */
export function referenceSeconds(cost: ReferenceCost, gemm: Pick<GemmPlan, 'kind' | 'threads' | 'softmaxThreads'>): number {
  const rate = gemm.kind === 'blas' ? REFERENCE_RATES.blasMacs * gemm.threads : REFERENCE_RATES.jsMacs * gemm.threads;
  const { elements, copies, bytes, weights } = REFERENCE_RATES;
  const w = gemm.softmaxThreads ?? 1;
  const softmax = cost.elements / (elements * w) + (w > 1 ? cost.elements / copies : 0);
  return cost.macs / rate + softmax + cost.bytes / bytes + cost.weights / weights;
}

/** The machine the reference would run on: its GEMM, its memory, whether the logits are recorded, the KV splits. */
export interface ReferenceHost {
  gemm: GemmPlan;
  memoryBytes: number;
  scores?: boolean;
  kvSplits?: number;
}

/** This machine, MLA_DIFF_BLAS as set, scores recorded, no KV splits. */
export const thisHost = (env: NodeJS.ProcessEnv = process.env): ReferenceHost => ({
  gemm: planReferenceGemm(parseBlasRequest(env['MLA_DIFF_BLAS']), 'auto', availableParallelism()),
  memoryBytes: totalmem(),
});

/** What the plan expects of the reference: seconds, bytes held, and the GEMM it multiplies through. */
export interface ReferenceEstimate {
  seconds: number;
  bytes: number;
  gemm: string;
}

const GiB = 2 ** 30;

/**
 * Whether the float64 reference runs: `on` always, `off` never, `auto` when its estimate is within
 * REFERENCE_AUTO_MAX_SECONDS and its records within REFERENCE_AUTO_MEMORY_SHARE of the memory. GLM-5
 * at 64 heads, one causal prefill, scores recorded (unfused wasm): T = 2048 is 0.53 TMAC, 8.6 GiB;
 * 2 cores with OpenBLAS: 33 s of dgemm + 2.5 s of softmax (2 workers) + 4.6 s of fresh memory + 1.7 s
 * of weights ≈ 44 s: runs. T = 8192 unrecorded (fused): 3.6 TMAC, 18 GiB; 16 cores: 28 + 9 (2.1e9
 * visible keys on 16 workers, and the caller's copies) + 10 + 1.7 ≈ 49 s: runs; recorded, its 64 GiB
 * of logits and attn_probs are over both limits. Measured: bench/reference/results.md.
 */
export function planReference(
  mode: ReferenceMode,
  c: MlaConfig,
  heads: HeadSlice,
  pieces: readonly CostPiece[],
  host?: ReferenceHost,
): { run: boolean; note?: string; estimate?: ReferenceEstimate } {
  if (mode === 'off') return { run: false, note: 'reference off: culprits come from the majority of the fp32 paths' };
  const h = host ?? thisHost();
  const cost = referenceCost(c, heads, pieces, h.scores ?? true, h.kvSplits ?? 1);
  const estimate = { seconds: referenceSeconds(cost, h.gemm), bytes: cost.bytes, gemm: h.gemm.description };
  const force = 'set reference: on (or --reference on) to run it anyway';
  if (mode === 'auto' && estimate.seconds > REFERENCE_AUTO_MAX_SECONDS) {
    const what = `about ${estimate.seconds.toFixed(0)} s in float64 (${(cost.macs / 1e12).toFixed(2)} TMAC, ${h.gemm.description})`;
    return {
      run: false,
      estimate,
      note: `reference skipped: ${what} is over ${REFERENCE_AUTO_MAX_SECONDS} s; ${force}`,
    };
  }
  if (mode === 'auto' && cost.bytes > REFERENCE_AUTO_MEMORY_SHARE * h.memoryBytes) {
    const held = `${(cost.bytes / GiB).toFixed(1)} GiB of float64 records`;
    return {
      run: false,
      estimate,
      note: `reference skipped: about ${held}, over half of this machine's ${(h.memoryBytes / GiB).toFixed(0)} GiB; ${force}`,
    };
  }
  return { run: true, estimate };
}
