import type { WeightSource } from '../../core/weights/layer';
import { LINEAR_NAMES } from '../../core/weights/layer';
import type { Progress, ProgressPhase } from '../../trace';

/** Progress of a run as data: the event types live in src/trace/progress.ts. */
export type { Progress, ProgressEvent, ProgressPhase } from '../../trace';

export const NO_PROGRESS: Progress = () => {};

/** A wait of unknown length as one unit of `phase`: 0 of 1 before `work`, 1 of 1 after it. */
export async function during<T>(progress: Progress, phase: ProgressPhase, label: string, work: () => Promise<T>): Promise<T> {
  progress({ phase, done: 0, total: 1, label });
  const r = await work();
  progress({ phase, done: 1, total: 1, label });
  return r;
}

/**
 * The same weights, saying which linear weight is being filled (synthesized from the seed, or read
 * and dequantized from a checkpoint) before each: the weights / checkpoint phase of a run, one unit
 * per linear weight (uploadLayer fills each once). Every other member is the source's own.
 */
export function reportingSource(source: WeightSource, progress: Progress, phase: 'weights' | 'checkpoint'): WeightSource {
  const total = LINEAR_NAMES.length;
  return {
    label: source.label,
    config: source.config,
    origin: (name) => source.origin(name),
    errorBound: (name) => source.errorBound(name),
    norm: (name) => source.norm(name),
    block: (name, rows, cols, layout, dst) => {
      progress({ phase, done: LINEAR_NAMES.indexOf(name), total, label: `${source.label} · ${name}` });
      source.block(name, rows, cols, layout, dst);
    },
    embeddingOrigin: () => source.embeddingOrigin(),
    embeddingBound: (ids) => source.embeddingBound(ids),
    embeddings: (ids) => source.embeddings(ids),
  };
}
