import type { KernelOptions, PieceInput } from '../../paths/backend';
import { referenceCases } from '../../paths/reference-cases';
import type { PathTrace } from '../../core/probes/recorder';
import type { StageName } from '../../trace/stages';
import { STAGE_NAMES } from '../../trace/stages';
import type { HeadSlice } from '../../core/weights/layer';
import type { SourceSpec } from '../../checkpoints/checkpoint/source';
import { openSource } from '../../checkpoints/checkpoint/source';
import { roundedSource } from '../../core/precision/source';

/** Everything the float64 reference needs, as structured-cloneable data: the whole schedule, all cases. */
export interface ReferenceJob {
  source: SourceSpec;
  cases: HeadSlice[];
  pieces: PieceInput[];
  kernels: KernelOptions;
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
}

/** Every stage is compared elementwise, the absorbed weights included (they are small next to the layer). */
export const RETAINED: ReadonlySet<StageName> = new Set(STAGE_NAMES);

export async function runReferenceJob(job: ReferenceJob): Promise<ReferenceResult> {
  const t0 = performance.now();
  const recordings = await referenceCases(
    roundedSource(openSource(job.source), job.kernels.precision?.dtype ?? 'float32'),
    job.cases,
    job.pieces,
    job.kernels,
    RETAINED,
  );
  const cases = recordings.map(({ trace, captured }) => {
    const out: HostCapture[] = [];
    for (const [key, c] of captured) if (c.where === 'host') out.push({ key, data: c.data, shape: c.shape, layout: c.layout });
    return { trace, captured: out };
  });
  return { cases, seconds: (performance.now() - t0) / 1000 };
}
