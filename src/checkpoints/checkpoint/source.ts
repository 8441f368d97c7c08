import { CheckpointWeights } from './checkpoint-weights';
import { openGgufLayer } from './gguf-layer';
import { openSafetensorsLayer } from './safetensors-layer';
import type { WeightSource } from '../../core/weights/layer';
import type { SourceSpec } from '../../trace';
import { SyntheticWeights } from '../../core/weights/synthetic';

/**
 * A weight source as plain data, so that a worker thread can open the same source: the float64
 * reference regenerates (or, for checkpoints, re-reads) exactly the values the device holds.
 */
export type { SourceSpec } from '../../trace';

export function openSource(spec: SourceSpec): WeightSource {
  switch (spec.kind) {
    case 'synthetic':
      return new SyntheticWeights(spec.config, spec.seed, spec.gain);
    case 'gguf':
      return new CheckpointWeights(
        openGgufLayer(spec.file, { layer: spec.layer, overrides: spec.overrides, ...(spec.fault ? { fault: spec.fault } : {}) }),
      );
    case 'safetensors':
      return new CheckpointWeights(openSafetensorsLayer(spec.file, { layer: spec.layer, overrides: spec.overrides }));
  }
}
