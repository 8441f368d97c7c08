import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { MlaDiffError } from '../errors';
import { missingMessage, specialKind } from './regular-file';

const MiB = 1024 * 1024;
/**
 * The largest text file read whole: a saved run report (a long schedule's run JSON is tens of MB)
 * with room to spare, and far below what V8 can hold as one string (~512 M characters).
 */
export const TEXT_FILE_BYTES = 256 * MiB;
/** The largest scenario or sweep matrix: hand-written YAML is kilobytes; more is a mistake or an attack. */
export const SCENARIO_FILE_BYTES = 16 * MiB;

const unreadable = (file: string, e: unknown, hint?: string) => {
  const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
  return new MlaDiffError(
    missing ? 'file-not-found' : 'file-unreadable',
    missing ? missingMessage(file) : `cannot read: ${(e as Error).message}`,
    { file },
    hint,
  );
};

const tooLarge = (file: string, what: string, limit: number) =>
  new MlaDiffError(
    'limit-exceeded',
    `is larger than ${limit / MiB} MiB, more than ${what} can be`,
    { file },
    'name the right file; inputs this large are refused before they are read',
  );

/**
 * A small input file (scenario, sweep matrix, saved report) read whole as UTF-8. Every failure is
 * one MlaDiffError naming the file: file-not-found, file-unreadable (a directory, a device, a FIFO,
 * a socket, no permission) or limit-exceeded (over `limit` bytes). The file is opened without
 * blocking and checked on its descriptor, so a FIFO cannot hang the read, /dev/zero cannot fill the
 * memory, and a file swapped after a check is still the one checked. `what` names what the file
 * should be; `hint` goes with a missing or unreadable file.
 */
export function readTextFile(file: string, what: string, hint?: string, limit = TEXT_FILE_BYTES): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EISDIR')
      throw new MlaDiffError('file-unreadable', `is a directory, not ${what}`, { file }, hint);
    throw unreadable(file, e, hint);
  }
  try {
    const st = fstatSync(fd);
    const kind = specialKind(st);
    if (kind) throw new MlaDiffError('file-unreadable', `is a ${kind}, not ${what}`, { file }, hint);
    if (st.size > limit) throw tooLarge(file, what, limit);
    // Read to the end, never past the limit: a file growing while read (or a /proc file stating 0) stays bounded.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size - total, 64 * 1024), limit + 1 - total));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > limit) throw tooLarge(file, what, limit);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (e) {
    if (e instanceof MlaDiffError) throw e;
    throw unreadable(file, e, hint);
  } finally {
    closeSync(fd);
  }
}
