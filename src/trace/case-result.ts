import { z } from 'zod';
import { PATH_NAMES } from './stages';
import { bool, count, def, finite, ints, keyed, num, numOrNull, oneOf, scope, str, strs } from './json';
import { origin, path, replayPath } from './names';
import { caseTrace, where } from './case-trace';
import { caseComparison, diagnosis } from './comparison';

/** `cases[]`: one case's trace with its comparison, diagnosis, detail, replay and expectation. */

/** Where inside one divergent record it diverges: per query token and per head, culprit against witness. */
export const recordDetail = def(
  'recordDetail',
  z.strictObject({
    ...where,
    /** The pair measured: the culprit (or the first engine path) and the reference (or another engine path). */
    a: path,
    b: path,
    /** RoPE positions of the piece's query tokens: the `t` axis. */
    positions: ints,
    /** ‖a_t − b_t‖ / max(‖a_t‖, ‖b_t‖) per query token; null without a `t` axis. */
    perToken: z.array(num).nullable(),
    /** The same per head; null without an `h` axis. */
    perHead: z.array(num).nullable(),
    /**
     * A two-axis record (the LSEs, [N,T]): the relative error of `a` with its buffer read in the other axis order ([T,N] data
     * taken as [N,T], or the reverse; the smaller of the two), against `b`. Small where the plain error is not: a layout bug.
     */
    swapped: num.optional(),
    /**
     * A normalized record (hidden_in, q_c, kv_c_normed): the relative error left once each token's row of `a` is scaled by
     * its best factor onto `b`'s. Small where the plain error is not: each row off by a factor of its own (an RMS divisor).
     */
    rowScaled: num.optional(),
  }),
);
export type RecordDetail = z.infer<typeof recordDetail>;

/** Measurements of the first divergent records taken while their values were alive (version 4). */
export const caseDetail = def(
  'caseDetail',
  z.strictObject({
    records: z.array(recordDetail),
    /** Per piece of those records: each path's mean attn_probs row entropy / ln(keys seen) (1 = uniform). */
    entropy: z.array(z.strictObject({ ...scope, paths: keyed(PATH_NAMES, num) })),
  }),
);
export type CaseDetail = z.infer<typeof caseDetail>;

/** One input of a replayed record, and the path whose captured value replaced it. */
export const replayInput = z.strictObject({ ...where, from: path });
export type ReplayInput = z.infer<typeof replayInput>;

/**
 * A stage replay (teacher forcing) of one divergent record: `introduced` (fed path A's inputs, B
 * still diverges there), `inherited` (B agrees with A once its inputs are A's), `undetermined` (an
 * input or A's value unavailable: `reason`), `not-replayed` (over the case's cap of replays).
 * With `mode: 'records'` nothing was re-run: the third party's origin read from its own records of the stage's inputs.
 */
export const replayResult = def(
  'replayResult',
  z.strictObject({
    ...where,
    /** The path re-run (B); `external` for an origin read from the third party's records (`mode: 'records'`). */
    path: replayPath,
    origin,
    /**
     * `records`: not a re-run (a third party cannot be fed our inputs): `inputs` are the third party's own records of the
     * stage's inputs (src/core/probes/dataflow.ts) with the path each was judged against; all ok and the record not →
     * introduced, one divergent → inherited, one it did not record → undetermined. Absent: a stage replay.
     */
    mode: oneOf(['records']).optional(),
    /** The path whose value B is judged against at the record (A), null when none has it. */
    source: path.nullable(),
    /** B re-run from A's inputs against A at the record, in canonical layout; null when not run. */
    relErrAfter: numOrNull,
    tolerance: finite,
    /** What was substituted: the record's direct inputs, and for cache reads the latent rows of earlier pieces. */
    inputs: z.array(replayInput),
    reason: str.optional(),
  }),
);
export type ReplayResult = z.infer<typeof replayResult>;

export const caseReplay = def(
  'caseReplay',
  z.strictObject({
    results: z.array(replayResult),
    /** Re-runs of a path (replays sharing a substitution set share one). */
    runs: count,
    seconds: finite,
  }),
);
export type CaseReplay = z.infer<typeof caseReplay>;

/** Whether a case met the outcome its scenario declares under `expect:`. */
export const expectationResult = def(
  'expectationResult',
  z.strictObject({
    met: bool,
    /** What did not match, e.g. `first divergence q_pe, expected logits`. */
    misses: strs,
  }),
);
export type ExpectationResult = z.infer<typeof expectationResult>;

/**
 * How a run is judged: `expect` (a case with `expect:` passes when its declared outcome is met, one without when its paths
 * agree), `agreement` (`--no-expect`: every case passes when its paths agree, whatever it declares).
 */
export const JUDGES = ['expect', 'agreement'] as const;
export const judge = oneOf(JUDGES);
export type Judge = z.infer<typeof judge>;
/** A case's or a run's result under its judge (src/harness/compare/outcome.ts): what the exit code and every report say. */
export const PASS_FAIL = ['pass', 'fail'] as const;
export const passFail = oneOf(PASS_FAIL);
export type PassFail = z.infer<typeof passFail>;

export const caseResult = def(
  'caseResult',
  z.strictObject({
    trace: caseTrace,
    comparison: caseComparison,
    /** Per-token, per-head errors and attention entropy at the first divergent records (absent when they agree). */
    detail: caseDetail.optional(),
    /**
     * Likely causes of the first divergence (the first introduced one after a replay), most specific first (empty when the paths agree).
     */
    diagnosis: z.array(diagnosis),
    /** Stage replay of divergent records: introduced there or inherited from upstream (absent when off or the case agrees). */
    replay: caseReplay.optional(),
    expectation: expectationResult.optional(),
    /** pass or fail under the run's `judge` (version 6). */
    outcome: passFail,
  }),
);
export type CaseResult = z.infer<typeof caseResult>;
