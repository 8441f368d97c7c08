import type { MlaConfig } from '../model/config';
import type { WeightSource } from './layer';
import { SyntheticWeights } from './synthetic';

/**
 * A weight source as plain data, so that a worker thread can open the same source: the float64
 * reference regenerates (or, for checkpoints, re-reads) exactly the values the device holds.
 */
export type SourceSpec = { kind: 'synthetic'; config: MlaConfig; seed: number };

export function openSource(spec: SourceSpec): WeightSource {
  switch (spec.kind) {
    case 'synthetic': return new SyntheticWeights(spec.config, spec.seed);
  }
}
