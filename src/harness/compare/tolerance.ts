import type { StageName } from '../../trace/stages';
import type { ToleranceRule, ToleranceSpec } from '../../trace';
import { STAGES } from '../../trace/stages';

export type Dtype = 'float32';

/** Default relative-L2 tolerance per compute dtype (fp32: the paths agree to ~1e-6). */
export const DEFAULT_REL: Record<Dtype, number> = { float32: 1e-5 };

/** A tolerance rule and a scenario's tolerances: src/trace/scenario.ts. */
export type { ToleranceRule, ToleranceSpec } from '../../trace';

/**
 * Weight stages (W_UK_T, W_UV) are rearrangements of the same float32 values: any difference at
 * all is a bug in the rearrangement, so they must match exactly unless a scenario says otherwise.
 */
export const WEIGHT_REL = 0;

/** The rule a stage is judged with: its own override, else the weight or dtype default. */
export function ruleFor(stage: StageName, spec: ToleranceSpec, dtype: Dtype = 'float32'): ToleranceRule {
  const own = spec.stages?.[stage];
  if (own !== undefined) return own;
  if (STAGES[stage].kind === 'weight') return WEIGHT_REL;
  return spec.default ?? DEFAULT_REL[dtype];
}

/** The multiple k of a floor-based rule, or null for a relative one. */
export const floorMultiple = (rule: ToleranceRule): number | null => (typeof rule === 'number' ? null : rule.floor);

/** Whether any rule of the spec is floor-based (such runs need the fp32 cold path for their floors). */
export const usesFloor = (spec: ToleranceSpec): boolean =>
  [spec.default, ...Object.values(spec.stages ?? {})].some((r) => r !== undefined && floorMultiple(r) !== null);

/**
 * The relative-L2 tolerance a stage is judged with: its rule, with a floor-based one resolved
 * against the record's noise floor (`floor`, required for such a rule to mean anything).
 */
export function toleranceFor(stage: StageName, spec: ToleranceSpec, dtype: Dtype = 'float32', floor = 0): number {
  const rule = ruleFor(stage, spec, dtype);
  return typeof rule === 'number' ? rule : rule.floor * floor;
}

/** Whether the scenario itself sets the stage's rule (its own override, or a default), rather than the built-in default. */
export const explicitRule = (stage: StageName, spec: ToleranceSpec): boolean =>
  spec.stages?.[stage] !== undefined || spec.default !== undefined;
