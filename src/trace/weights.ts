import { z } from 'zod';
import { bool, count, countPair, def, ints, keyed, num, numOrNull, str, strs } from './json';
import { ENGINE_PATHS, enginePath, outcome, weightName, weightVerdict } from './names';
import { headSlice, where } from './case-trace';
import { expectationResult } from './case-result';

/**
 * `weights`: the weight stage W of a run (src/core/weights/records.ts records it) and, across two
 * sources of the same layer (`compare_weights:`), their diffs and the activations of each engine
 * path run on both (src/harness/compare/weights.ts judges them).
 */

export const weightRecord = def(
  'weightRecord',
  z.strictObject({
    name: weightName,
    /** The file's tensor names it was read from. */
    tensors: strs,
    dtype: str,
    shape: ints,
    norm: num,
    maxAbs: num,
    nonFinite: count,
    /** First 16 hex digits of the SHA-256 of its float32 values (little-endian): equal ⇔ bit-identical. */
    checksum: z.string().regex(/^[0-9a-f]{16}$/),
    /** ‖per-element quantization bound‖₂: how far it may sit from the values it was quantized from (0: exact). */
    boundNorm: num,
  }),
);
export type WeightRecord = z.infer<typeof weightRecord>;

export const weightSet = def('weightSet', z.strictObject({ label: str, records: z.array(weightRecord) }));

/** One weight across the two sources. */
const weightDiffShape = {
  name: weightName,
  /** ‖a − b‖ / ‖b‖ (b: the compare source). */
  relErr: num,
  maxAbsErr: num,
  /** [row, col] (or [i]) of the largest |a − b|. */
  maxAbsErrAt: ints,
  /** (‖bound_a‖ + ‖bound_b‖) / ‖b‖: the most relErr can be when both hold the same weights. */
  allowed: num,
  /** Elements with |a − b| above bound_a + bound_b. */
  beyond: count,
  nonFinite: countPair,
  shapeMatch: bool,
};
export const weightDiff = z.strictObject(weightDiffShape);
export type WeightDiff = z.infer<typeof weightDiff>;
export const weightVerdictSchema = z.strictObject({ ...weightDiffShape, verdict: weightVerdict });
export type WeightVerdict = z.infer<typeof weightVerdictSchema>;

/** One activation record of one path, measured across the two sources. */
const acrossDiffShape = { ...where, path: enginePath, relErr: numOrNull };
export const acrossDiff = z.strictObject(acrossDiffShape);
export type AcrossDiff = z.infer<typeof acrossDiff>;
export const acrossVerdict = z.strictObject({ ...acrossDiffShape, allowed: num, verdict: outcome });
export type AcrossVerdict = z.infer<typeof acrossVerdict>;

export const weightsComparison = z.strictObject({
  verdict: outcome,
  weights: z.array(weightVerdictSchema),
  /** The first weight (in W order) that differs beyond its bound. */
  firstWeight: weightName.nullable(),
  activations: z.array(acrossVerdict),
  /** Per path, the first activation record that moved beyond what the weights' bounds allow. */
  firstActivation: keyed(ENGINE_PATHS, acrossVerdict),
});
export type WeightsComparison = z.infer<typeof weightsComparison>;

/** The weight stage W of a run: each source's records and, with compare_weights:, their comparison. */
export const weightsReport = def(
  'weightsReport',
  z.strictObject({
    primary: weightSet,
    compare: weightSet.optional(),
    /** Heads the activations were compared on across sources. */
    heads: headSlice.optional(),
    comparison: weightsComparison.optional(),
    expectation: expectationResult.optional(),
  }),
);
export type WeightsReport = z.infer<typeof weightsReport>;
