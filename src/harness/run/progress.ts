import type { Progress } from '../../trace';

/** Progress of a run as data: the event types live in src/trace/progress.ts. */
export type { Progress, ProgressEvent, ProgressPhase } from '../../trace';

export const NO_PROGRESS: Progress = () => {};
