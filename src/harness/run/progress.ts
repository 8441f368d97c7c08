/**
 * Progress of a run as data: the run layer reports where it is, a renderer (src/surface/reports/progress.ts,
 * on a TTY only) draws it. `done` of `total` units of one phase; `label` says what the unit is.
 */
export type ProgressPhase = 'weights' | 'pieces' | 'points';

export interface ProgressEvent {
  phase: ProgressPhase;
  done: number;
  total: number;
  /** e.g. `case tp0-of-8 · step 3, request d`, or a sweep point's id. */
  label: string;
}

export type Progress = (e: ProgressEvent) => void;

export const NO_PROGRESS: Progress = () => {};
