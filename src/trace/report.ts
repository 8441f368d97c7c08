import { z } from 'zod';
import { FAULT_NAMES } from './faults';
import { asJson, bool, count, finite, int, keyed, numOrNull, oneOf, str, strs } from './json';
import { culpritName, ENGINE_PATHS, faultName, outcome, stageName } from './names';
import { deviceInfo, scenarioEcho } from './scenario';
import { caseResult, judge, passFail } from './case-result';
import { weightsReport } from './weights';

/**
 * The versioned JSON that joins run → compare → report. Bump RUN_VERSION on any change a reader
 * could trip over; docs/trace-format.md documents the fields.
 */
export const RUN_FORMAT = 'mla-diff/run';
export const RUN_VERSION = 6;
/** The previous version: read too, its outcome computed on load (src/harness/golden/load-report.ts). */
export const RUN_VERSION_PREVIOUS = 5;
export const RUN_SCHEMA_ID = `urn:mla-diff:schema:run:${RUN_VERSION}`;
export const RUNS_SCHEMA_ID = 'urn:mla-diff:schema:runs:1';
export const SELFTEST_SCHEMA_ID = 'urn:mla-diff:schema:selftest:1';

/** One scenario run by mla-diff: the trace of every path, their comparison and diagnosis. */
export const runReport = z.strictObject({
  format: z.literal(RUN_FORMAT),
  version: z.literal(RUN_VERSION),
  tool: z.strictObject({ name: z.literal('mla-diff'), version: str }),
  created: z.string().regex(/^\d{4}-\d{2}-\d{2}T/),
  scenario: scenarioEcho,
  device: deviceInfo,
  /** 'agree' when every case agrees and, with compare_weights:, the two weight sources agree. */
  verdict: outcome,
  /** How the run was judged: `expect` (declared outcomes; the default), `agreement` (`--no-expect`). (version 6) */
  judge,
  /**
   * pass when every case passes under `judge` and, with compare_weights:, the weights part does (its `expect.weights`, else
   * agreement): what the exit code, the table, JUnit, Markdown and HTML say. (version 6)
   */
  outcome: passFail,
  /** The weight stage W: per weight its source, dtype, shape, norm and checksum; across sources, their diffs. */
  weights: weightsReport.optional(),
  /** Wall seconds: weight build and upload, the float64 reference (on its own thread), the whole run. */
  seconds: z.strictObject({ weights: finite, reference: numOrNull, total: finite }),
  cases: z.array(caseResult),
});
export type RunReport = z.infer<typeof runReport>;

/** Several scenarios in one document: `mla-diff run A.yaml B.yaml --format json`; each run refers to the run schema. */
export const runsReport = z.strictObject({
  format: z.literal('mla-diff/runs'),
  version: z.literal(1),
  runs: z.array(asJson(z.custom<RunReport>(), { $ref: RUN_SCHEMA_ID })).min(1),
});
export type RunsReport = z.infer<typeof runsReport>;

export const selftestRow = z.strictObject({
  name: str,
  fault: faultName.nullable(),
  path: oneOf(ENGINE_PATHS).nullable(),
  /** Fault runs: the run diverged. Clean runs: it diverged too (a false positive). */
  detected: bool,
  /** The first divergence is the stage the fault enters. */
  localized: bool,
  /** The culprit named is the path the fault was planted in. */
  attributed: bool,
  /** The first likely cause names the planted fault. */
  diagnosed: bool,
  /**
   * Stage replay: in the first divergent piece the fault's entry stage (and the stages it also
   * enters) are marked introduced and every other divergent record inherited.
   */
  origin: bool,
  cause: str.nullable(),
  first: z.strictObject({ step: count, request: str, stage: stageName, culprit: culpritName }).nullable(),
  seconds: finite,
});
export type SelftestRow = z.infer<typeof selftestRow>;

export const faultRates = z.strictObject({
  runs: count,
  detected: count,
  localized: count,
  attributed: count,
  diagnosed: count,
  origin: count,
});
export type FaultRates = z.infer<typeof faultRates>;

/** One tolerance mode's scores over the plan. */
const scoreShape = {
  /** `default` (rel 1e-5 for fp32) or `floor k` (`tolerances: {default: {floor: k}}`). */
  tolerance: str,
  rows: z.array(selftestRow),
  perFault: keyed(FAULT_NAMES, faultRates),
  total: faultRates,
  clean: z.strictObject({ runs: count, falsePositives: count }),
  /** 100 % detection, localization and attribution, and no false positive. */
  goalMet: bool,
  seconds: finite,
};
export const selftestScore = z.strictObject(scoreShape);
export type SelftestScore = z.infer<typeof selftestScore>;

export const selftestOptions = z.strictObject({
  seeds: z.array(int).readonly(),
  shapes: strs.readonly(),
  /** Judge with `tolerances: {default: {floor: k}}` (the cold path then runs for the floors); default: the rel default. */
  floor: finite.optional(),
});
export type SelftestOptions = z.infer<typeof selftestOptions>;

/** The default-tolerance scores at the top level; with a floor k, the same plan under `{floor: k}` in `floor`. */
export const selftestReport = z.strictObject({
  format: z.literal('mla-diff/selftest'),
  version: z.literal(1),
  device: deviceInfo,
  options: selftestOptions,
  ...scoreShape,
  floor: selftestScore.optional(),
});
export type SelftestReport = z.infer<typeof selftestReport>;
