import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MlaDiffError } from '../../../errors';
import { JUNIT_MARKER } from '../../reports/junit';
import { MARKDOWN_MARKER } from '../../reports/markdown';

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

/**
 * Writes a report without ever losing a user's file: never over an input, over an existing file
 * only if mla-diff wrote it (or --force), and atomically (temp file + rename). Missing parent
 * directories are created (CI writes into out/ci/ on a clean clone).
 */
export function writeOutput(path: string, text: string, opts: { force: boolean; inputs: string[]; field?: string }): void {
  const target = resolve(path);
  const field = opts.field ?? '--out';
  if (opts.inputs.some((f) => resolve(f) === target)) {
    throw new MlaDiffError('output-exists', 'refusing to write the report over an input scenario', { file: path, field });
  }
  if (existsSync(target) && !opts.force) {
    const head = readFileSync(target, { encoding: 'utf8', flag: 'r' }).slice(0, 64);
    if (!OUTPUT_MARKERS.some((m) => head.startsWith(m))) {
      throw new MlaDiffError(
        'output-exists',
        'exists and was not written by mla-diff; refusing to overwrite it',
        { file: path, field },
        'choose another path or pass --force',
      );
    }
  }
  mkdirSync(dirname(target), { recursive: true });
  // synchronous from here to the rename: a SIGINT's handler (guardProcess) runs only after it, so no half file stays
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`);
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true }); // a full disk or a target that cannot be replaced: no temp file left behind
    throw e;
  }
}
