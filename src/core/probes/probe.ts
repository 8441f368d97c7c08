import type * as tf from '@tensorflow/tfjs-core';
import type { ScalarName, ScalarValue, StageName } from '../../trace/stages';
import type { CheckName } from '../../trace';

/**
 * A tensor of the plain-TypeScript reference, row-major: float64 for computed values, float32 for
 * exact rearrangements of float32 weights (W_UK_T, W_UV).
 */
export interface HostTensor {
  shape: number[];
  data: Float64Array | Float32Array;
}

/**
 * Counts a path keeps on its own values per stage: `lse_bounds` rows breaking max ≤ lse ≤ max + ln n
 * (an invariant: any violation is a divergence); `overflow` values that rounded past the storage
 * dtype's range to ±inf, `saturated` values an fp8 cache clamped to ±448 (facts of the precision,
 * shown and used by the diagnosis, not divergences by themselves).
 */
export type { CheckName } from '../../trace';

/** Whether a check is an invariant whose violation makes the record divergent. */
export const isInvariant = (name: CheckName): boolean => name === 'lse_bounds';

/**
 * An identity tap at a named stage: `x = probe.tap('q_nope', x)`. With no recorder attached it
 * returns `x` untouched and costs one call. `wants` guards probe-only work (derived checks,
 * materialized logits, invariant checks) so that it, too, costs nothing when nothing records.
 */
export interface Probe<T> {
  readonly enabled: boolean;
  wants(stage: StageName): boolean;
  /**
   * `layout` names the axes of `x` when they differ from the stage's canonical layout; `chunk`
   * indexes the context chunk of chunked stages.
   */
  tap<X extends T>(stage: StageName, x: X, layout?: string, chunk?: number): X;
  /** Rows of `stage` that break an invariant (`violations`: a count, scalar tensor or number). */
  check(stage: StageName, name: CheckName, violations: T | number, chunk?: number): void;
  scalar(name: ScalarName, value: ScalarValue): void;
}

export type TensorProbe = Probe<tf.Tensor>;
export type HostProbe = Probe<HostTensor>;

const nullProbe = {
  enabled: false,
  wants: () => false,
  tap: <X>(_stage: StageName, x: X) => x,
  check: () => {},
  scalar: () => {},
};

export const NULL_PROBE: Probe<never> & TensorProbe & HostProbe = nullProbe;
