/** What every step of one device path's piece reads: the layer, the faults, the probe, the rounding, the piece and its scale. */
import type { FaultSet } from '../core/faults/catalogue';
import type { TensorProbe } from '../core/probes/probe';
import type { PieceInput } from './backend';
import type { DeviceLayer } from './layer';
import type { Rounding } from './rounding';

export interface PathStep {
  layer: DeviceLayer;
  faults: FaultSet;
  probe: TensorProbe;
  rd: Rounding;
  piece: PieceInput;
  /** The softmax scale the path uses (pathScale). */
  scale: number;
}
