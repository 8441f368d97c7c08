import { z } from 'zod';
import { count, oneOf, str } from './json';

/**
 * Progress of a run as data: the run layer (src/harness/run) reports where it is, a renderer
 * (src/surface/reports/progress.ts, on a TTY only) draws it. `done` of `total` units of one phase;
 * `label` says what the unit is.
 */
export const progressPhase = oneOf(['weights', 'pieces', 'points']);
export type ProgressPhase = z.infer<typeof progressPhase>;

export const progressEvent = z.strictObject({
  phase: progressPhase,
  done: count,
  total: count,
  /** e.g. `case tp0-of-8 · step 3, request d`, or a sweep point's id. */
  label: str,
});
export type ProgressEvent = z.infer<typeof progressEvent>;

export type Progress = (e: ProgressEvent) => void;
