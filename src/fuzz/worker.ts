/**
 * A campaign's child process: `node dist/fuzz/worker.js DIR`. It takes chunks {target, seed, from, to} over IPC, runs each
 * input in-process and answers `start` before and `done` after each one, so that the parent's watchdog (15 s), RSS
 * poll and exit handler know which input hung, blew up or killed the process. It exits by itself once its peak RSS
 * passes RESTART_RSS (a peak is per process: a fresh child measures the next inputs afresh).
 */
import type { Outcome } from './classify';
import { runOne } from './run-one';
import type { TargetName } from './target';
import { targetSet } from './targets';

export interface Chunk {
  target: TargetName;
  seed: number;
  from: number;
  to: number;
}
export type WorkerMessage =
  | { kind: 'start'; index: number }
  | { kind: 'done'; index: number; outcome: Outcome; describe: string; ms: number; maxRssKb: number }
  | { kind: 'chunk-done' };

const RESTART_RSS_KB = 1024 * 1024;

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir || !process.send) throw new Error('usage: node worker.js DIR (as a child process with IPC)');
  const targets = targetSet(dir);
  const send = (m: WorkerMessage) => new Promise<void>((ok) => process.send!(m, undefined, {}, () => ok()));
  process.on('message', (c: Chunk) => {
    void (async () => {
      for (let index = c.from; index < c.to; index++) {
        await send({ kind: 'start', index });
        const r = await runOne(targets(c.target), c.seed, index);
        const maxRssKb = process.resourceUsage().maxRSS;
        await send({ kind: 'done', ...r, maxRssKb });
        if (maxRssKb > RESTART_RSS_KB) process.exit(0);
      }
      await send({ kind: 'chunk-done' });
    })();
  });
}

void main();
