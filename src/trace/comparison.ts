import { z } from 'zod';
import { FAULT_NAMES, GGUF_PLANTS } from './faults';
import { PATH_NAMES } from './stages';
import { count, def, finite, keyed, num, numOrNull, oneOf, scope, str, trueOnly } from './json';
import { cause, checkName, culprit, DEVICE_PATHS, floorSource, LOADER_FAULTS, outcome, path, scalarName, verdict } from './names';
import { scalarValue, where } from './case-trace';

/**
 * `cases[].comparison` and `cases[].diagnosis`: a recorded case judged against tolerances and
 * matched against known causes (src/harness/compare computes them).
 */

export const pairVerdict = def(
  'pairVerdict',
  z.strictObject({
    a: path,
    b: path,
    verdict,
    relErr: numOrNull,
    normRatio: numOrNull,
    /** One side known by its norm only: relErr is a lower bound (PairDiff.normOnly). */
    normOnly: trueOnly.optional(),
  }),
);
export type PairVerdict = z.infer<typeof pairVerdict>;

export const checkResult = z.strictObject({ path, name: checkName, violations: count });
export type CheckResult = z.infer<typeof checkResult>;

export const noiseFloor = z.strictObject({
  value: finite,
  source: floorSource,
  /**
   * Present when an engine path stores the stage in a narrower dtype than the cold path does (the
   * Triton MLA LSE in bf16): that one rounding's relative error u/√3, combined into `value` as
   * √(measured² + storage²). A correct path in that precision has at least this error there.
   */
  storage: finite.optional(),
});
export type NoiseFloor = z.infer<typeof noiseFloor>;

/** One record (piece, stage, chunk) judged over every pair of paths that have it. */
export const stageVerdict = def(
  'stageVerdict',
  z.strictObject({
    ...where,
    verdict,
    /** The relative-L2 bound every pair of the record is judged with. */
    tolerance: finite,
    /** Present when the tolerance is k × the noise floor (`{floor: k}`): k. */
    floorMultiple: finite.optional(),
    /**
     * The bound the third party (path `external`) is judged with against the float64 reference: k × its floor
     * (`externalFloor`), k the stage's floor multiple or the calibrated one; with a relative rule the scenario sets
     * explicitly, never below it; without the reference, never below `tolerance` (compare.ts thirdPartyBounds).
     */
    externalTolerance: finite.optional(),
    /**
     * The third party's noise floor: hypot(the record's floor, the rounding points a third party has that our paths
     * do not: RoPE angles in fp32, an engine's F16 cache, its activation rounding) (floors-engine.ts).
     */
    externalFloor: finite.optional(),
    /** The record's noise floor and where it came from (floors.ts). */
    floor: noiseFloor,
    /** Each fp32 path's relative error against the float64 reference here (with the reference). */
    vsReference: keyed(DEVICE_PATHS, num),
    pairs: z.array(pairVerdict),
    checks: z.array(checkResult),
    /** Which path is wrong, when the record diverges. */
    culprit: culprit.nullable(),
  }),
);
export type StageVerdict = z.infer<typeof stageVerdict>;

export const divergence = def(
  'divergence',
  z.strictObject({
    ...where,
    verdict,
    culprit,
    /** The engine-pair measure (or the failing pair's) at the divergence. */
    relErr: numOrNull,
    normRatio: numOrNull,
  }),
);
export type Divergence = z.infer<typeof divergence>;

export const scalarMismatch = z.strictObject({ ...scope, name: scalarName, values: keyed(PATH_NAMES, scalarValue) });
export type ScalarMismatch = z.infer<typeof scalarMismatch>;

export const caseComparison = def(
  'caseComparison',
  z.strictObject({
    verdict: outcome,
    firstDivergence: divergence.nullable(),
    /** Every record of every piece, in schedule and pipeline order. */
    stages: z.array(stageVerdict),
    /** Largest mha↔mqa relative error over activation records. */
    worstEngine: z.strictObject({ ...where, relErr: num }).nullable(),
    scalarMismatches: z.array(scalarMismatch),
  }),
);
export type CaseComparison = z.infer<typeof caseComparison>;

/**
 * A likely cause of the first divergence: a known cause checked against it, with the evidence that
 * matched (recorded scalars, norm ratios equal to a known constant, which neighbouring records agree).
 */
export const diagnosis = def(
  'diagnosis',
  z.strictObject({
    cause,
    summary: str,
    evidence: str,
    /** The planted fault (or real bug class) this signature is. */
    matches: oneOf([...FAULT_NAMES, ...LOADER_FAULTS, ...GGUF_PLANTS]).optional(),
  }),
);
export type Diagnosis = z.infer<typeof diagnosis>;
