import { z } from 'zod';
import { count, oneOf, str } from './json';

/**
 * Progress of a run as data: the run layer (src/harness/run) reports where it is, a renderer
 * (src/surface/reports/progress.ts, on a TTY only) draws it. `done` of `total` units of one phase;
 * `label` says what the unit is. Every wait of a run has its phase: weights synthesized (weights)
 * or read from a checkpoint (checkpoint), the pieces through the device paths (pieces), the float64
 * reference's worker (reference), an external backend (external), the records compared (compare),
 * stage replay (replay), the divergent stage's detail (detail); a sweep's points (points); the
 * selftest's planted runs (selftest). A wait of unknown length is one unit: 0 of 1, then 1 of 1.
 */
export const progressPhase = oneOf([
  'weights',
  'checkpoint',
  'pieces',
  'reference',
  'external',
  'compare',
  'replay',
  'detail',
  'points',
  'selftest',
]);
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
