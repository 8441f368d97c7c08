import { CheckpointWeights } from './checkpoint-weights';
import { openGgufLayer } from './gguf-layer';
import type { LoaderFault } from './kv-b';
import { openSafetensorsLayer } from './safetensors-layer';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor, WeightSource } from '../../core/weights/layer';
import { SyntheticWeights } from '../../core/weights/synthetic';

/**
 * A weight source as plain data, so that a worker thread can open the same source: the float64
 * reference regenerates (or, for checkpoints, re-reads) exactly the values the device holds.
 */
export type SourceSpec =
  | { kind: 'synthetic'; config: MlaConfig; seed: number; gain?: Partial<Record<LayerTensor, number>> }
  | { kind: 'gguf'; file: string; layer: number; overrides: Partial<MlaConfig>; fault?: LoaderFault }
  | { kind: 'safetensors'; file: string; layer: number; overrides: Partial<MlaConfig> };

export function openSource(spec: SourceSpec): WeightSource {
  switch (spec.kind) {
    case 'synthetic': return new SyntheticWeights(spec.config, spec.seed, spec.gain);
    case 'gguf': return new CheckpointWeights(openGgufLayer(spec.file, { layer: spec.layer, overrides: spec.overrides, ...(spec.fault ? { fault: spec.fault } : {}) }));
    case 'safetensors': return new CheckpointWeights(openSafetensorsLayer(spec.file, { layer: spec.layer, overrides: spec.overrides }));
  }
}
