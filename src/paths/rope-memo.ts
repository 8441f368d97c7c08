import type * as tfc from '@tensorflow/tfjs-core';
import type { MlaConfig } from '../core/model/config';
import type { RopeAngles } from '../core/model/rope';
import { ropeTables } from '../core/model/rope';

/** Rotary tables as float32 tensors, [T, R/2]. */
export interface RopeTensors {
  cos: tfc.Tensor2D;
  sin: tfc.Tensor2D;
}

/**
 * A layer's rotary tables on the device, made once per positions array: a piece's positions are one
 * array shared by every path and replay of it, and at T = 8192 the float64 cos/sin of 262 144 angles
 * take ~16 ms of host time per call. The last `capacity` arrays are kept (the oldest released
 * first); `clear` (disposeLayer) releases them all.
 */
export class RopeMemo {
  private readonly byPositions = new Map<readonly number[], RopeTensors>();

  constructor(
    private readonly tf: typeof tfc,
    private readonly config: MlaConfig,
    private readonly capacity = 8,
    /** How the angles are computed (the scenario's rope_angles). */
    readonly angles: RopeAngles = 'float64',
  ) {}

  tensors(positions: readonly number[]): RopeTensors {
    const hit = this.byPositions.get(positions);
    if (hit) {
      this.byPositions.delete(positions); // most recent last
      this.byPositions.set(positions, hit);
      return hit;
    }
    const t = ropeTables(this.config, positions, this.angles);
    const T = positions.length;
    const r = {
      cos: this.tf.keep(this.tf.tensor2d(Float32Array.from(t.cos), [T, t.half])),
      sin: this.tf.keep(this.tf.tensor2d(Float32Array.from(t.sin), [T, t.half])),
    };
    this.byPositions.set(positions, r);
    for (const [p, old] of this.byPositions) {
      if (this.byPositions.size <= this.capacity) break;
      this.tf.dispose([old.cos, old.sin]);
      this.byPositions.delete(p);
    }
    return r;
  }

  /** Releases every table (made again on demand). */
  clear(): void {
    for (const r of this.byPositions.values()) this.tf.dispose([r.cos, r.sin]);
    this.byPositions.clear();
  }
}
