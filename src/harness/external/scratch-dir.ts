import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMlaDiffError, MlaDiffError, osReason } from '../../errors';

/**
 * The OS refusing a write: no space (ENOSPC, EDQUOT, EFBIG), no permission (EACCES, EPERM, EROFS),
 * no such directory or not one (ENOENT, ENOTDIR: TMPDIR names nothing usable), too many files open,
 * an I/O error. Anything else thrown while a scratch directory is written is a bug, not the machine.
 */
const WRITE_ERRORS: ReadonlySet<string> = new Set([
  'ENOSPC',
  'EDQUOT',
  'EFBIG',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOENT',
  'ENOTDIR',
  'EMFILE',
  'ENFILE',
  'EIO',
]);

const FULL: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

export const isWriteError = (e: unknown): e is NodeJS.ErrnoException =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && WRITE_ERRORS.has((e as NodeJS.ErrnoException).code!);

/** write-failed naming the directory, what it is for and the OS's reason (its code and words). */
export function writeFailed(e: NodeJS.ErrnoException, dir: string, what: string): MlaDiffError {
  return new MlaDiffError(
    'write-failed',
    `could not write ${what} ${dir}: ${osReason(e)}`,
    { file: dir },
    FULL.has(e.code!) ? `free space in ${tmpdir()}, or point TMPDIR at a directory with room` : 'point TMPDIR at a writable directory',
  );
}

/** A fresh directory under TMPDIR (`<prefix>XXXXXX`) for `what`: write-failed naming TMPDIR when it cannot be made. */
export function scratchDir(prefix: string, what: string): string {
  try {
    return mkdtempSync(join(tmpdir(), prefix));
  } catch (e) {
    throw isWriteError(e) ? writeFailed(e, tmpdir(), `${what} under`) : e;
  }
}

/**
 * Runs `write` (filling `dir`); when the OS refuses a write (or a writer below already said
 * write-failed), removes `dir`, so that a full disk is not left fuller, and throws write-failed naming it.
 */
export function writeInto<T>(dir: string, what: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    const refused = isWriteError(e);
    if (!refused && !(isMlaDiffError(e) && e.code === 'write-failed')) throw e;
    rmSync(dir, { recursive: true, force: true });
    throw refused ? writeFailed(e, dir, what) : e;
  }
}
