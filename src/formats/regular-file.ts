import { statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { MlaDiffError } from '../errors';

/** What a path is when it is not a regular file: named in the refusal. */
export type SpecialKind = 'directory' | 'FIFO' | 'character device' | 'block device' | 'socket';

export function specialKind(st: Stats): SpecialKind | undefined {
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'FIFO';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return undefined;
}

/** The message of a missing input: an empty path says so, as it names no file. */
export const missingMessage = (file: string): string => (file === '' ? 'the path is empty' : 'no such file');

/**
 * Stats an input (following links) and refuses what is not a regular file before anything reads it:
 * /dev/zero would be read until memory runs out, a FIFO blocks forever, a directory fails with EISDIR.
 * file-not-found when it is missing, file-unreadable (naming the kind) otherwise.
 */
export function statRegularFile(file: string, what: string, hint?: string): Stats {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new MlaDiffError(
      missing ? 'file-not-found' : 'file-unreadable',
      missing ? missingMessage(file) : `cannot read: ${(e as Error).message}`,
      { file },
      hint,
    );
  }
  const kind = specialKind(st);
  if (kind) throw new MlaDiffError('file-unreadable', `is a ${kind}, not ${what}`, { file }, hint);
  return st;
}
