import type { StopHost } from '../../../harness/external/stop';
import { signalExit, stopRun } from '../../../harness/external/stop';
import { EXIT } from './exit-codes';

/**
 * The signals that stop a run: Ctrl-C at a terminal, a CI runner's or a supervisor's stop, the
 * terminal closing (SIGHUP: by default it would end mla-diff without a word and leave its backend running).
 */
export const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type Interrupt = (typeof INTERRUPTS)[number];

/** What the guard touches of the process: `process` itself in the CLI, a stand-in in tests. */
export interface GuardedProcess extends StopHost {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  on(event: 'unhandledRejection', fn: (reason: unknown) => void): unknown;
  on(event: Interrupt, fn: () => void): unknown;
  on(event: string, fn: () => string | void): unknown;
  removeAllListeners(event: Interrupt): unknown;
  setUncaughtExceptionCaptureCallback(fn: ((e: unknown) => void) | null): void;
  exit(code: number): never;
}

const isEpipe = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === 'EPIPE';

/** Erases a progress bar's half-drawn line and shows the cursor again (cli-progress hides it while drawing). */
const CLEAR_LINE = '\r\x1b[2K\x1b[?25h';

/** A write that cannot throw: the stream may be the one that failed. */
function tryWrite(s: NodeJS.WritableStream, text: string): void {
  try {
    s.write(text);
  } catch {
    // nowhere left to say it
  }
}

/** The one message of an error nothing caught: its text, and its stack only with --verbose. */
export function internalErrorText(e: unknown, verbose: boolean): string {
  const err = e instanceof Error ? e : new Error(String(e));
  const tail = verbose ? (err.stack ?? '') : '  (pass --verbose for the stack trace)';
  return `mla-diff: internal error: ${err.message}\n${tail}\n`;
}

/**
 * Keeps every way the process can end within exit codes 0-3 (130/143/129 for a signal) and one
 * message, whatever runs inside it (tfjs-backend-wasm's emscripten module installs process handlers
 * that rethrow, which Node ends with exit 7 and a stack trace):
 * - an uncaught exception or an unhandled rejection: `mla-diff: internal error: …`, exit 3. The
 *   capture callback replaces the 'uncaughtException' event, so listeners added later (emscripten's
 *   among them) are never asked; a throw inside one's 'unhandledRejection' listener lands here too.
 * - EPIPE on stdout or stderr: the reader went away (`| head -1`), it has what it wanted: exit 0.
 * - SIGINT / SIGTERM / SIGHUP: stopRun kills what the run started (an external backend's or
 *   llama.cpp's whole process tree, sweep workers) and removes what it wrote (the exchange
 *   directory, unless --keep-external: then the line names it), then `mla-diff: interrupted
 *   (SIGINT)`, exit 128 + the signal's number (130, 143, 129). Reports are written synchronously
 *   (writeOutput: temp file + rename), and a JS signal handler runs only between event-loop turns,
 *   so no write is cut in half and no temp file stays. Once the kills are sent the handlers are
 *   removed: a second Ctrl-C while directories are removed ends the process at once, as Ctrl-C
 *   does by default, and nothing it started is left running.
 */
export function guardProcess(p: GuardedProcess, verbose: boolean): void {
  const crash = (e: unknown) => {
    tryWrite(p.stderr, internalErrorText(e, verbose));
    p.exit(EXIT.internal);
  };
  p.setUncaughtExceptionCaptureCallback(crash);
  p.on('unhandledRejection', crash);
  const closed = (e: unknown) => (isEpipe(e) ? p.exit(EXIT.agree) : crash(e));
  p.stdout.on('error', closed);
  p.stderr.on('error', closed);
  for (const signal of INTERRUPTS) {
    p.on(signal, () => {
      const notes = stopRun(p, () => INTERRUPTS.forEach((s) => p.removeAllListeners(s)));
      const kept = notes.map((n) => `; ${n}`).join('');
      tryWrite(p.stderr, `${p.stderr.isTTY ? CLEAR_LINE : ''}mla-diff: interrupted (${signal})${kept}\n`);
      p.exit(signalExit(signal));
    });
  }
}
