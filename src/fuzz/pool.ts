import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from './classify';
import type { Chunk, WorkerMessage } from './worker';

export interface PoolOptions {
  jobs: number;
  /** Work folder; child k works under DIR/w<k>. */
  dir: string;
  /** An input running longer than this is a hang (the child is killed). */
  hangMs: number;
  /** A child whose resident set passes this is killed, the input a blow-up. */
  blowupBytes: number;
  /** Called once per input, in no particular order. */
  onResult(c: Chunk, index: number, outcome: Outcome, describe: string, ms: number): void;
}

const rssBytes = (pid: number): number => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};

/**
 * Runs chunks in `jobs` child processes (worker.js) with a watchdog: an input past hangMs, a child past blowupBytes or
 * a child that dies mid-input (V8 out of memory, a native abort) ends that input's run with its class, and the rest of
 * its chunk goes on in a fresh child. V8's heap cap (--max-old-space-size) sits above blowupBytes so the RSS poll sees
 * a blow-up first; array buffers outside the heap are caught by the poll alone.
 */
export async function runPool(chunks: Chunk[], o: PoolOptions): Promise<void> {
  const queue = [...chunks];
  const slot = async (k: number): Promise<void> => {
    let child: ChildProcess | undefined;
    let pending: Chunk | undefined;
    while (pending || queue.length) {
      const c = pending ?? queue.shift()!;
      pending = undefined;
      child ??= fork(join(__dirname, 'worker.js'), [join(o.dir, `w${k}`)], {
        execArgv: [`--max-old-space-size=${Math.ceil((o.blowupBytes * 1.5) / 2 ** 20)}`],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      const resumeAt = await runChunk(child, c, o);
      if (resumeAt !== undefined) {
        child = undefined;
        if (resumeAt < c.to) pending = { ...c, from: resumeAt };
      }
    }
    child?.kill('SIGKILL');
  };
  await Promise.all(Array.from({ length: o.jobs }, (_, k) => slot(k)));
}

/** Runs one chunk; undefined when the child finished it and lives on, else the index to resume at in a new child. */
function runChunk(child: ChildProcess, c: Chunk, o: PoolOptions): Promise<number | undefined> {
  return new Promise((resolve) => {
    let current: { index: number; t0: number } | undefined;
    let lastDone = c.from - 1;
    let verdict: Outcome | undefined;
    let stderr = '';
    const onErr = (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000));
    child.stderr?.on('data', onErr);
    const kill = (why: Outcome) => {
      verdict = why;
      child.kill('SIGKILL');
    };
    const timer = setInterval(() => {
      if (!current) return;
      const ms = performance.now() - current.t0;
      if (ms > o.hangMs) kill({ class: 'hang', signature: `past ${o.hangMs / 1000} s` });
      else if (child.pid && rssBytes(child.pid) > o.blowupBytes)
        kill({ class: 'blow-up', signature: `RSS past ${o.blowupBytes / 2 ** 30} GiB` });
    }, 200);
    const done = (v: number | undefined) => {
      clearInterval(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.stderr?.off('data', onErr);
      resolve(v);
    };
    const onMessage = (m: WorkerMessage) => {
      if (m.kind === 'start') current = { index: m.index, t0: performance.now() };
      else if (m.kind === 'done') {
        current = undefined;
        lastDone = m.index;
        const big = m.maxRssKb * 1024 > o.blowupBytes;
        o.onResult(
          c,
          m.index,
          big ? { class: 'blow-up', signature: `peak RSS past ${o.blowupBytes / 2 ** 30} GiB` } : m.outcome,
          m.describe,
          m.ms,
        );
      } else done(undefined);
    };
    const onExit = (code: number | null, signal: string | null) => {
      if (current) {
        const oom = /heap out of memory|Allocation failed|bad_alloc/.test(stderr);
        const outcome: Outcome = verdict ?? {
          class: oom ? 'blow-up' : 'crash',
          signature: oom
            ? 'V8 out of memory'
            : `child died (${signal ?? code}): ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`.slice(0, 160),
        };
        o.onResult(c, current.index, outcome, '(see repro)', performance.now() - current.t0);
        done(current.index + 1);
      } else done(lastDone + 1);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send(c);
  });
}
