import { workerData } from 'node:worker_threads';
import type { FillShare } from './parallel-fill';
import { fillShare } from './parallel-fill';

/** Worker entry of parallelFill: claims chunks of the grid until none is left, then exits. */
fillShare(workerData as FillShare);
