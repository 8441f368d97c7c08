import { spawn } from 'node:child_process';
import type { ErrorCode } from '../../errors';
import { MlaDiffError } from '../../errors';
import { stderrTail, TailBuffer } from './stderr-tail';
import { killTree, onStop } from './stop';

/** What is kept of each stream in memory, however much the backend prints: its end. */
const KEEP_BYTES = 1 << 20;
/** setTimeout's largest delay; a longer one fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1;
/** How long the pipes may stay open once everything the command started is killed (a daemon that escaped holds them). */
const DRAIN_MS = 2000;

export interface CommandOptions {
  /** The scenario file's directory. */
  cwd: string;
  /** MLA_DIFF_REQUEST, MLA_DIFF_DIR, MLA_DIFF_OUT. */
  env: Record<string, string>;
  timeoutS: number;
  /** Named in errors. */
  label: string;
  /** The codes and field of its errors: external-timeout / external-failed at external.* unless given. */
  errors?: { timeout: ErrorCode; failed: ErrorCode; field: string; hint: string };
}

export interface BackendResult {
  /** The end of its stdout and stderr (the last MiB of each), and how many bytes before that were let go. */
  stdout: string;
  stderr: string;
  dropped: { stdout: number; stderr: number };
  seconds: number;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/**
 * Runs the backend's command through the shell in its own session and process group, so that a
 * timeout, a signal that stops mla-diff (stopRun) or mla-diff's exit (a crash) kills everything it
 * started, and so does its own end: a process it left running (`server &`) would hold its pipes, and
 * the run, open. Its output is kept as the end of each stream in bounded memory. Resolves with it;
 * throws external-timeout past the limit and external-failed (exit code or signal, the last lines of
 * stderr, escaped and bounded: stderrTail) when it fails.
 */
export async function runBackend(command: string, o: CommandOptions): Promise<BackendResult> {
  const t0 = performance.now();
  const out = new TailBuffer(KEEP_BYTES);
  const err = new TailBuffer(KEEP_BYTES);
  const child = spawn(command, {
    shell: true,
    cwd: o.cwd,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  const kill = () => {
    if (child.pid !== undefined) killTree(child.pid);
  };
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      kill();
    },
    Math.min(MAX_DELAY_MS, Math.max(0, o.timeoutS * 1000)),
  );
  const unStop = onStop('kill', kill);
  process.prependListener('exit', kill);
  let ended: Ended;
  try {
    ended = await new Promise<Ended>((done) => {
      child.once('error', (error) => done({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => done({ code, signal }));
    });
    kill();
    await Promise.race([closed, new Promise((t) => setTimeout(t, DRAIN_MS).unref())]);
  } finally {
    clearTimeout(timer);
    unStop();
    process.removeListener('exit', kill);
    child.stdout.destroy();
    child.stderr.destroy();
  }
  const seconds = (performance.now() - t0) / 1000;
  const e = o.errors;
  if (timedOut) {
    throw new MlaDiffError(
      e?.timeout ?? 'external-timeout',
      `${o.label} ran past its timeout of ${o.timeoutS} s and was killed`,
      { field: e ? `${e.field}.timeout_s` : 'external.timeout_s' },
      e ? `raise ${e.field}: timeout_s` : 'raise external: timeout_s, or make the backend faster',
    );
  }
  if (ended.error || ended.code !== 0) {
    const how = ended.error
      ? `could not be started (${ended.error.message})`
      : ended.signal
        ? `was killed by ${ended.signal}`
        : `exited with code ${ended.code}`;
    const tail = stderrTail(err.text(), undefined, err.dropped);
    throw new MlaDiffError(
      e?.failed ?? 'external-failed',
      `${o.label} ${how}${tail ? `; its stderr ends:\n${tail}` : ' (no stderr)'}`,
      { field: e?.field ?? 'external.command' },
      e?.hint ?? `the command: ${stderrTail(command, { lines: 3, lineChars: 300, bytes: 1024 })}`,
    );
  }
  return { stdout: out.text(), stderr: err.text(), dropped: { stdout: out.dropped, stderr: err.dropped }, seconds };
}
