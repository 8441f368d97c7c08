import type { LinearName, Layout, NormName, Range, WeightSource } from '../weights/layer';
import type { StorageDtype } from './formats';
import { roundInto } from './formats';
import type { ActivationDtype } from './plan';

/**
 * A weight source as an engine holds it in `dtype`: every projection, norm and embedding row
 * rounded once on the host (an FP8 or Q8_0 checkpoint is dequantized, then stored in the model
 * dtype, as vLLM's bf16 copies are). Every path, the reference included, reads the same values, so
 * weight rounding is an input and never counted as an error. float32 returns `source` itself.
 */
export function roundedSource(source: WeightSource, dtype: ActivationDtype): WeightSource {
  if (dtype === 'float32') return source;
  const d: StorageDtype = dtype;
  const round = (x: Float32Array): Float32Array => {
    roundInto(x, x, d);
    return x;
  };
  return {
    label: `${source.label}, stored as ${dtype}`,
    config: source.config,
    origin: (name) => source.origin(name),
    errorBound: (name) => source.errorBound(name),
    norm: (name: NormName) => round(Float32Array.from(source.norm(name))),
    block(name: LinearName, rows: Range, cols: Range, layout: Layout, dst: Float32Array) {
      source.block(name, rows, cols, layout, dst);
      round(dst);
    },
    embeddingOrigin: () => source.embeddingOrigin(),
    embeddingBound: (ids) => source.embeddingBound(ids),
    embeddings: (ids) => round(Float32Array.from(source.embeddings(ids))),
  };
}
