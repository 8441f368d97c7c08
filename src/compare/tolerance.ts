import type { StageName } from '../probes/stages';
import { STAGES } from '../probes/stages';

export type Dtype = 'float32';

/** Default relative-L2 tolerance per compute dtype (fp32: the paths agree to ~1e-6). */
export const DEFAULT_REL: Record<Dtype, number> = { float32: 1e-5 };

/** Relative tolerances: a default and per-stage overrides, as a scenario's `tolerances:` gives them. */
export interface ToleranceSpec {
  default?: number;
  stages?: Partial<Record<StageName, number>>;
}

/**
 * Weight stages (W_UK_T, W_UV) are rearrangements of the same float32 values: any difference at
 * all is a bug in the rearrangement, so they must match exactly unless a scenario says otherwise.
 */
export const WEIGHT_REL = 0;

/** The tolerance a stage is judged with: its own override, else the weight or dtype default. */
export function toleranceFor(stage: StageName, spec: ToleranceSpec, dtype: Dtype = 'float32'): number {
  const own = spec.stages?.[stage];
  if (own !== undefined) return own;
  if (STAGES[stage].kind === 'weight') return WEIGHT_REL;
  return spec.default ?? DEFAULT_REL[dtype];
}
