import { parentPort } from 'node:worker_threads';
import type { ReferenceJob } from './reference-job';
import { runReferenceJob } from './reference-job';

/** Worker entry: runs float64 reference jobs on a second core while tfjs runs the engine paths. */
parentPort?.on('message', (msg: { id: number; job: ReferenceJob }) => {
  runReferenceJob(msg.job).then(
    (result) => {
      const buffers = [...new Set(result.cases.flatMap((c) => c.captured.map((x) => x.data.buffer as ArrayBuffer)))];
      parentPort!.postMessage({ id: msg.id, result }, buffers);
    },
    (e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});
