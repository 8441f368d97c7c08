import type { KernelOptions, PieceInput } from '../../paths/backend';
import { referenceCases } from '../../paths/reference-cases';
import type { PathTrace } from '../../core/probes/recorder';
import type { StageName } from '../../trace/stages';
import { STAGE_NAMES } from '../../trace/stages';
import type { HeadSlice } from '../../core/weights/layer';
import type { SourceSpec } from '../../checkpoints/checkpoint/source';
import { openSource } from '../../checkpoints/checkpoint/source';
import { roundedSource } from '../../core/precision/source';
import type { BlasRequest } from '../../devices/kernels/host-blas';
import { parseBlasRequest } from '../../devices/kernels/host-blas';
import type { GemmRequest } from '../../paths/reference-gemm-open';
import { openReferenceGemm } from '../../paths/reference-gemm-open';
import type { Scenario } from '../scenario/scenario';
import { planRun } from './pieces';
import type { ReferenceCost } from './plan-reference';
import { referenceCost } from './plan-reference';

/** Everything the float64 reference needs, as structured-cloneable data: the whole schedule, all cases. */
export interface ReferenceJob {
  source: SourceSpec;
  cases: HeadSlice[];
  pieces: PieceInput[];
  kernels: KernelOptions;
  /** The host BLAS as the run asks for it (MLA_DIFF_BLAS); absent: read from the environment. */
  blas?: BlasRequest;
  /** The float64 GEMM to multiply through (reference-gemm-open.ts); absent: auto (BLAS, else a worker pool, else plain loops). */
  gemm?: GemmRequest;
  /**
   * The stages the reference records (absent: all). Without `logits` the reference holds one group of
   * heads' logits at a time, and multiplies only the keys each row sees: pass the stages the engine
   * paths record (under fused attention without logits_rows, neither logits nor attn_probs).
   */
  stages?: StageName[];
}

export interface HostCapture {
  key: string;
  data: Float64Array | Float32Array;
  shape: number[];
  layout: string;
}

export interface ReferenceCase {
  trace: PathTrace;
  captured: HostCapture[];
}

export interface ReferenceResult {
  cases: ReferenceCase[];
  seconds: number;
  /** The float64 GEMM it multiplied through, e.g. `cblas_dgemm of OpenBLAS 0.3.21 (Haswell kernels, 2 threads)`. */
  gemm: string;
}

/** Every stage is compared elementwise, the absorbed weights included (they are small next to the layer). */
export const RETAINED: ReadonlySet<StageName> = new Set(STAGE_NAMES);

export async function runReferenceJob(job: ReferenceJob): Promise<ReferenceResult> {
  const t0 = performance.now();
  const gemm = openReferenceGemm(job.blas ?? parseBlasRequest(process.env['MLA_DIFF_BLAS']), job.gemm ?? 'auto');
  let recordings: Awaited<ReturnType<typeof referenceCases>>;
  try {
    const source = roundedSource(openSource(job.source), job.kernels.precision?.dtype ?? 'float32');
    const stages = job.stages && new Set(job.stages);
    recordings = await referenceCases(source, job.cases, job.pieces, job.kernels, RETAINED, gemm, stages);
  } finally {
    await gemm.close();
  }
  const cases = recordings.map(({ trace, captured }) => {
    const out: HostCapture[] = [];
    for (const [key, c] of captured) if (c.where === 'host') out.push({ key, data: c.data, shape: c.shape, layout: c.layout });
    return { trace, captured: out };
  });
  return { cases, seconds: (performance.now() - t0) / 1000, gemm: gemm.description };
}

/**
 * A scenario's float64 reference on its own (bench/reference, an embedding tool): every case over the
 * whole schedule, as runScenario submits it, with its estimated cost (plan-reference.ts); `scores`
 * false records neither logits nor attn_probs (as under fused attention without logits_rows).
 */
export function scenarioReference(
  s: Scenario,
  opts: { gemm?: GemmRequest; scores?: boolean } = {},
): { job: ReferenceJob; cost: ReferenceCost; heads: HeadSlice } {
  const plan = planRun(s, roundedSource(openSource(s.weights), s.precision.dtype));
  const lo = Math.min(...s.cases.map((c) => c.heads.start));
  const heads = { start: lo, count: Math.max(...s.cases.map((c) => c.heads.start + c.heads.count)) - lo };
  const scores = opts.scores ?? true;
  const stages = scores ? undefined : STAGE_NAMES.filter((n) => n !== 'logits' && n !== 'attn_probs');
  const job = {
    source: s.weights,
    cases: s.cases.map((c) => c.heads),
    pieces: plan.pieces,
    kernels: plan.kernels,
    gemm: opts.gemm,
    stages,
  };
  return { job, cost: referenceCost(s.config, heads, plan.pieces, scores, plan.kernels.kvSplits), heads };
}
