import { closeSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { MlaDiffError } from '../../../errors';
import { JUNIT_MARKER } from '../../reports/junit';
import { MARKDOWN_MARKER } from '../../reports/markdown';
import type { OutputTarget } from './output-path';
import { checkOutputTarget, fileHead, refuseInput, refuseTwins, writeFailed } from './output-path';

/** Where the CLI writes; tests substitute buffers. */
export interface IO {
  out(text: string): void;
  err(text: string): void;
  /** Where a progress bar may draw (a TTY only; absent in tests). */
  errStream?: NodeJS.WriteStream;
}

export const processIO: IO = {
  out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
  errStream: process.stderr,
};

/**
 * Wall seconds since this command started: Node's performance clock counts from the process's start
 * (performance.timeOrigin), so start-up, module loading, choosing the device, the runs and the
 * rendering so far are all in it: what the user waited. For the final `time:` line of a run.
 */
export const commandSeconds = (): number => performance.now() / 1000;

/** Marks files mla-diff wrote, which it may overwrite without --force. */
export const OUTPUT_MARKERS = [
  '{\n  "format": "mla-diff/',
  'mla-diff report',
  '<!DOCTYPE html>\n<!-- mla-diff report',
  JUNIT_MARKER,
  MARKDOWN_MARKER,
  '# mla-diff tolerances',
  'mla-diff golden comparison',
];

export interface WriteOptions {
  force: boolean;
  /** Every file the run reads (scenarioInputs): an output resolving to one is refused, even with --force. */
  inputs: readonly string[];
  /** The flag that named the path (default --out): errors name it. */
  field?: string;
}

/**
 * Checks an output before the run, so that nothing is computed in vain: a file it may take
 * (checkOutputTarget), not an input of the run, and an existing file only if mla-diff wrote it
 * (or --force). Run again by writeOutput at write time: the files may have changed meanwhile.
 */
export function checkOutput(path: string, opts: WriteOptions): OutputTarget {
  const t = checkOutputTarget(path, opts.field ?? '--out');
  refuseInput(t, opts.inputs);
  if (t.exists && !t.discard && !opts.force) {
    let head = '';
    try {
      head = fileHead(t.abs);
    } catch {
      // unreadable: not known to be mla-diff's, so refused below
    }
    if (!OUTPUT_MARKERS.some((m) => head.startsWith(m))) {
      throw new MlaDiffError(
        'output-exists',
        'exists and was not written by mla-diff; refusing to overwrite it',
        { file: path, field: t.field },
        'choose another path or pass --force',
      );
    }
  }
  return t;
}

/** Checks several outputs of one command together: each as checkOutput, and no two of them one file. */
export function checkOutputs(outputs: readonly { path: string; field: string }[], opts: Omit<WriteOptions, 'field'>): void {
  refuseTwins(outputs.map((o) => checkOutput(o.path, { ...opts, field: o.field })));
}

/**
 * Writes a report without ever losing a user's file: never over an input, over an existing file
 * only if mla-diff wrote it (or --force), and atomically: a temp file in the same directory,
 * renamed over the target. Missing parent directories are created (CI writes into out/ci/ on a
 * clean clone). A failure (a full disk, no permission) removes the temp file and is write-failed,
 * naming the path and the OS's reason.
 */
export function writeOutput(path: string, text: string, opts: WriteOptions): void {
  const t = checkOutput(path, opts);
  const data = text.endsWith('\n') ? text : `${text}\n`;
  if (t.discard) return;
  const dir = dirname(t.abs);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw writeFailed(path, t.field, e);
  }
  // synchronous from here to the rename: a SIGINT's handler (guardProcess) runs only after it, so no half file stays
  const tmp = tempBeside(t.abs);
  let renamed = false;
  try {
    const fd = openSync(tmp, 'wx', 0o666);
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, t.abs);
    renamed = true;
  } catch (e) {
    throw writeFailed(path, t.field, e);
  } finally {
    if (!renamed) rmSync(tmp, { force: true }); // whatever threw: no temp file left behind
  }
}

/** A temp name beside the target that no file has: an existing file of that name is never replaced. */
function tempBeside(abs: string): string {
  for (let n = 0; ; n++) {
    const tmp = `${abs}.tmp-${process.pid}${n ? `-${n}` : ''}`;
    try {
      lstatSync(tmp); // a dangling link too: taken
    } catch {
      return tmp;
    }
  }
}
