import type { CauseName } from '../compare/diagnose';
import type { Verdict } from '../compare/compare';
import type { FloorSource } from '../compare/floors';
import type { Origin } from '../compare/origin';
import type { WeightVerdictName } from '../compare/weights';
import { LOADER_FAULTS } from '../../checkpoints/checkpoint/kv-b';
import { FAULT_NAMES } from '../../core/faults/catalogue';
import type { CheckName } from '../../core/probes/probe';
import type { ScalarName } from '../../core/probes/stages';
import { PATH_NAMES, STAGE_NAMES } from '../../core/probes/stages';
import type { DeviceName } from '../../devices/runtime';
import { CULPRITS } from '../scenario/scenario';
import { WEIGHT_NAMES } from '../../core/weights/records';

/**
 * The closed unions of the report as arrays, for the schema's enums. Those with a runtime list in
 * the source (stages, paths, culprits, faults, weights) are taken from it; the others are listed
 * here through `every<U>()`, which fails to compile when a member of the union is missing or a
 * listed value is not one: the union stays the single source of truth.
 */
type Missing<U, L extends readonly unknown[]> = Exclude<U, L[number]>;
export const every = <U extends string>() =>
  <const L extends readonly U[]>(list: L & ([Missing<U, L>] extends [never] ? unknown : { missing: Missing<U, L> })): readonly U[] => list;

export const VERDICTS = every<Verdict>()(['ok', 'out-of-tolerance', 'invariant-violated', 'nan-introduced', 'shape-mismatch']);
export const CAUSES = every<CauseName>()([
  'softmax-scale', 'lse-base', 'split-merge', 'rope-convention', 'rope-magnitude', 'norm-skipped', 'absorbed-weights',
  'empty-context-lse', 'merge-inputs', 'context-only', 'nan-origin', 'head-subset', 'flat-softmax', 'norm-ratio', 'dtype-range', 'narrow-storage',
]);
export const ORIGINS = every<Origin>()(['introduced', 'inherited', 'undetermined', 'not-replayed']);
export const FLOOR_SOURCES = every<FloorSource>()(['reference', 'paths', 'best-path', 'upstream', 'minimum']);
export const SCALAR_NAMES = every<ScalarName>()([
  'softmax_scale', 'has_context', 'num_tokens', 'num_context_tokens', 'route', 'context_chunks', 'kv_splits', 'empty_lse',
  'lse_base', 'rope_style', 'causal', 'logits_rows',
]);
export const DEVICE_NAMES = every<DeviceName>()(['webgpu', 'tensorflow', 'wasm', 'cpu']);
export const CHECK_NAMES = every<CheckName>()(['lse_bounds', 'overflow', 'saturated']);
export const WEIGHT_VERDICTS = every<WeightVerdictName>()(['agree', 'diverge', 'non-finite', 'shape-mismatch']);

export { CULPRITS, FAULT_NAMES, LOADER_FAULTS, PATH_NAMES, STAGE_NAMES, WEIGHT_NAMES };
