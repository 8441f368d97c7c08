import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ReferenceJob, ReferenceResult } from './reference-job';
import { runReferenceJob } from './reference-job';

/**
 * Runs reference jobs in one worker thread, in submission order, so that the float64 reference
 * overlaps the tfjs paths on the second core. Falls back to the calling thread where no compiled
 * worker exists (ts-jest runs the TypeScript sources).
 */
export class ReferenceRunner {
  private worker: Worker | null = null;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (r: ReferenceResult) => void; reject: (e: Error) => void }>();

  constructor(useWorker = true) {
    const entry = join(__dirname, 'reference-worker.js');
    if (useWorker && existsSync(entry)) {
      this.worker = new Worker(entry);
      this.worker.on('message', (m: { id: number; result?: ReferenceResult; error?: string }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (!this.pending.size) this.worker?.unref();
        if (m.result) p?.resolve(m.result);
        else p?.reject(new Error(`reference worker: ${m.error}`));
      });
      this.worker.on('error', (e) => this.failAll(e));
      this.worker.unref();
    }
  }

  get threaded(): boolean {
    return this.worker !== null;
  }

  submit(job: ReferenceJob): Promise<ReferenceResult> {
    if (!this.worker) return runReferenceJob(job);
    const id = this.next++;
    this.worker.ref(); // keep the process alive while a job is out; unref'd when none is
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage({ id, job });
    });
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
    this.failAll(new Error('reference runner closed'));
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
