import type { z } from 'zod';
import { FAULT_NAMES } from './faults';
import { PATH_NAMES, STAGE_NAMES } from './stages';
import type { DevicePath, ScalarName } from './stages';
import { def, oneOf } from './json';

/**
 * The closed sets a report names: each a list (the runtime source of truth) and its zod enum,
 * whose `z.infer` is the string-literal union the code uses. Stage, path and fault names live in
 * src/core (leaf modules that import nothing of src); the rest live here.
 */

/** Stage and path names: `stage` and `path` are the named sub-schemas, `stageName` and `pathName` the same inline (map keys). */
export const stage = def('stage', oneOf(STAGE_NAMES));
export const stageName = oneOf(STAGE_NAMES);
export const path = def('path', oneOf(PATH_NAMES));
export const pathName = oneOf(PATH_NAMES);
export const DEVICE_PATHS: readonly DevicePath[] = ['mha', 'mqa', 'cold'];
export const devicePath = def('devicePath', oneOf(DEVICE_PATHS));
/** A replayed path, or `external` for an origin read from the third party's own records. */
export const replayPath = oneOf([...DEVICE_PATHS, 'external'] as const);
export const ENGINE_PATHS = ['mha', 'mqa'] as const;
export const enginePath = oneOf(ENGINE_PATHS);

/** Which path is wrong where a record diverges. */
export const CULPRITS = ['mha', 'mqa', 'cold', 'both', 'shared', 'external', 'unknown'] as const;
export const culprit = def('culprit', oneOf(CULPRITS));
export const culpritName = oneOf(CULPRITS);
export type Culprit = z.infer<typeof culprit>;

/** A record's verdict, in increasing severity. */
export const VERDICTS = ['ok', 'out-of-tolerance', 'invariant-violated', 'nan-introduced', 'shape-mismatch'] as const;
export const verdict = def('verdict', oneOf(VERDICTS));
export type Verdict = z.infer<typeof verdict>;
export const OUTCOMES = ['agree', 'diverge'] as const;
export const outcome = oneOf(OUTCOMES);
export type Outcome = z.infer<typeof outcome>;

/** The known causes the diagnosis checks the first divergence against. */
export const CAUSES = [
  'softmax-scale',
  'lse-base',
  'split-merge',
  'rope-convention',
  'rope-magnitude',
  'norm-skipped',
  'absorbed-weights',
  'empty-context-lse',
  'merge-inputs',
  'context-only',
  'nan-origin',
  'head-subset',
  'flat-softmax',
  'norm-ratio',
  'lse-layout',
  'lse-sign',
  'causal-mask',
  'norm-rms',
  'dtype-range',
  'narrow-storage',
  'rope-parameters',
  'norm-weight-ones',
  'weight-differs',
] as const;
export const cause = oneOf(CAUSES);
export type CauseName = z.infer<typeof cause>;

/** A replayed record's origin (src/harness/compare/origin.ts). */
export const ORIGINS = ['introduced', 'inherited', 'undetermined', 'not-replayed'] as const;
export const origin = oneOf(ORIGINS);
export type Origin = z.infer<typeof origin>;

/**
 * Where a record's noise floor came from (src/harness/compare/floors.ts). `reference`: relErr(cold,
 * float64 reference) at the record (the dynamo same() ref_error); `paths`: no reference, the smallest
 * pairwise relErr of mha, mqa and cold; `best-path`: reference but no cold here, the smallest relErr
 * against it of the fp32 paths that have the record; `upstream`: one fp32 path only, the largest floor
 * of the earlier records of the same piece; `minimum`: nothing measured it (or a weight stage), MIN_FLOOR.
 */
export const FLOOR_SOURCES = ['reference', 'paths', 'best-path', 'upstream', 'minimum'] as const;
export const floorSource = oneOf(FLOOR_SOURCES);
export type FloorSource = z.infer<typeof floorSource>;

/**
 * `list` as the whole of the union U: it fails to compile when a member of U is missing (or a
 * listed value is not one), so that a union defined in a core leaf module stays the source of truth.
 */
type Missing<U, L extends readonly unknown[]> = Exclude<U, L[number]>;
const every =
  <U extends string>() =>
  <const L extends readonly U[]>(list: L & ([Missing<U, L>] extends [never] ? unknown : { missing: Missing<U, L> })): L =>
    list;

/** The scalars a path records per piece (their meaning: src/trace/stages.ts ScalarName). */
export const SCALAR_NAMES = every<ScalarName>()([
  'softmax_scale',
  'has_context',
  'num_tokens',
  'num_context_tokens',
  'route',
  'context_chunks',
  'kv_splits',
  'empty_lse',
  'lse_base',
  'rope_style',
  'causal',
  'logits_rows',
]);
export const scalarName = oneOf(SCALAR_NAMES);

/** Invariant and range checks a probe runs on a stage. */
export const CHECK_NAMES = ['lse_bounds', 'overflow', 'saturated'] as const;
export const checkName = oneOf(CHECK_NAMES);
export type CheckName = z.infer<typeof checkName>;

/** The tfjs backends mla-diff runs on. */
export const DEVICE_NAMES = ['webgpu', 'tensorflow', 'wasm', 'cpu'] as const;
export const deviceName = oneOf(DEVICE_NAMES);
export type DeviceName = z.infer<typeof deviceName>;

export const faultName = oneOf(FAULT_NAMES);
/**
 * A planted loader bug: `k-b-wrong-axis` reassembles attn_k_b along the wrong axis, reading its
 * [H, L, P] memory as if it were [H, P, L] (a view where the inverse needs a transpose).
 */
export const LOADER_FAULTS = ['k-b-wrong-axis'] as const;
export const loaderFault = oneOf(LOADER_FAULTS);
export type LoaderFault = z.infer<typeof loaderFault>;

/** The 2-D projections of one MLA layer, in Hugging Face names; stored [out, in] as PyTorch does. */
export const LINEAR_NAMES = ['q_a_proj', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_b_proj', 'o_proj'] as const;
export type LinearName = (typeof LINEAR_NAMES)[number];
/** The 1-D RMSNorm weights. */
export const NORM_NAMES = ['input_layernorm', 'q_a_layernorm', 'kv_a_layernorm'] as const;
export type NormName = (typeof NORM_NAMES)[number];
export type LayerTensor = LinearName | NormName;
/**
 * The weight stage W: every tensor of the layer, kv_b_proj's two halves as the absorbed path
 * uses them (W_UK: its K rows, from attn_k_b in a split GGUF; W_UV: its V rows, from attn_v_b),
 * and the embedding rows of the scenario's tokens.
 */
export const WEIGHT_NAMES = [
  'embed_tokens',
  'input_layernorm',
  'q_a_proj',
  'q_a_layernorm',
  'q_b_proj',
  'kv_a_proj_with_mqa',
  'kv_a_layernorm',
  'kv_b_proj',
  'W_UK',
  'W_UV',
  'o_proj',
] as const satisfies readonly (LayerTensor | 'W_UK' | 'W_UV' | 'embed_tokens')[];
export const weightName = oneOf(WEIGHT_NAMES);
export type WeightName = z.infer<typeof weightName>;
export const WEIGHT_VERDICTS = ['agree', 'diverge', 'non-finite', 'shape-mismatch'] as const;
export const weightVerdict = oneOf(WEIGHT_VERDICTS);
export type WeightVerdictName = z.infer<typeof weightVerdict>;

/** The precision a path computes in. */
export const computeDtype = oneOf(['float32', 'float64']);
