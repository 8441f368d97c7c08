import { readFileSync, statSync } from 'node:fs';
import { MlaDiffError } from '../errors';

/**
 * A small input file (scenario, sweep matrix, saved report) read whole as UTF-8. Every failure is
 * one MlaDiffError naming the file: file-not-found, or file-unreadable (a directory, no permission).
 * `what` names what the file should be; `hint` goes with a missing or unreadable file.
 */
export function readTextFile(file: string, what: string, hint?: string): string {
  try {
    if (statSync(file).isDirectory()) throw new MlaDiffError('file-unreadable', `is a directory, not ${what}`, { file });
    return readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof MlaDiffError) throw e;
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new MlaDiffError(
      missing ? 'file-not-found' : 'file-unreadable',
      missing ? 'no such file' : `cannot read: ${(e as Error).message}`,
      { file },
      hint,
    );
  }
}
