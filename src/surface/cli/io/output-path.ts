/** Where an output may go: a regular file (or /dev/null), never an input of the run, never under a file. */
import { accessSync, closeSync, constants, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MlaDiffError, osReason } from '../../../errors';
import { specialKind } from '../../../formats/regular-file';

/** The one special file an output may name: writing there discards the report, as the user asked. */
export const DISCARD = '/dev/null';

/** A file as the OS knows it: its real path, and its device and inode when it exists (a hard link has another path). */
export interface FileIdentity {
  real: string;
  dev?: number;
  ino?: number;
}

/** What a checked output path is: its absolute path, and whether it discards (/dev/null) or already exists. */
export interface OutputTarget {
  path: string;
  field: string;
  abs: string;
  discard: boolean;
  exists: boolean;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code;

/** The real path of `path`: of the file when it exists, else of its nearest existing ancestor plus the rest of the names. */
export function identify(path: string, depth = 0): FileIdentity {
  const abs = resolve(path);
  try {
    const real = realpathSync(abs);
    const st = statSync(real);
    return { real, dev: st.dev, ino: st.ino };
  } catch {
    // missing, or a dangling link: named by where the link points (two outputs through it are one file)
  }
  const link = danglingTarget(abs);
  if (link !== undefined && depth < 40) return identify(link, depth + 1);
  const rest: string[] = [basename(abs)];
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    try {
      return { real: join(realpathSync(dir), ...rest) };
    } catch {
      if (dirname(dir) === dir) return { real: abs };
      rest.unshift(basename(dir));
    }
  }
}

/** Where a symbolic link points, when abs is one. */
function danglingTarget(abs: string): string | undefined {
  try {
    return lstatSync(abs).isSymbolicLink() ? resolve(dirname(abs), readlinkSync(abs)) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether two identities are one file: the same real path, or the same device and inode (a hard link). */
export const sameFile = (a: FileIdentity, b: FileIdentity): boolean =>
  a.real === b.real || (a.ino !== undefined && a.dev === b.dev && a.ino === b.ino);

const invalid = (path: string, field: string, why: string, hint?: string) =>
  new MlaDiffError('output-invalid', why, { file: path.trim() === '' ? undefined : path, field }, hint);

/** The nearest existing ancestor of abs (the directory mkdir would create the rest under). */
function nearestExisting(abs: string): { dir: string; st: Stats } | undefined {
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    try {
      return { dir, st: statSync(dir) };
    } catch {
      if (dirname(dir) === dir) return undefined;
    }
  }
}

/**
 * Checks that `path` can take a report before anything runs: not empty, not a directory, device,
 * FIFO or socket (a FIFO would block the write forever), not under a regular file (ENOTDIR), in a
 * directory the process may write. /dev/null is allowed: the report is discarded.
 */
export function checkOutputTarget(path: string, field: string): OutputTarget {
  if (path.trim() === '') throw invalid(path, field, 'is empty', 'give a file name');
  if (path.includes('\0')) throw invalid(path.replaceAll('\0', '\\0'), field, 'holds a NUL character');
  const abs = resolve(path);
  let st: Stats | undefined;
  try {
    st = statSync(abs);
  } catch (e) {
    const code = errno(e);
    if (code === 'ENOTDIR') throw invalid(path, field, 'is under a regular file, not a directory');
    if (code === 'ELOOP') throw invalid(path, field, 'is a loop of symbolic links');
    if (code === 'ENAMETOOLONG') throw invalid(path, field, 'is too long a name');
    if (code !== 'ENOENT') throw writeFailed(path, field, e);
  }
  if (st) {
    const kind = specialKind(st);
    if (kind === 'character device' && identify(abs).real === DISCARD) return { path, field, abs, discard: true, exists: true };
    if (kind) throw invalid(path, field, `is a ${kind}, not a file`, 'name a regular file (or /dev/null to discard the report)');
  }
  const parent = nearestExisting(abs);
  if (parent && !parent.st.isDirectory()) throw invalid(path, field, `is under ${parent.dir}, which is not a directory`);
  if (parent) {
    try {
      accessSync(parent.dir, constants.W_OK);
    } catch (e) {
      throw writeFailed(path, field, e);
    }
  }
  return { path, field, abs, discard: false, exists: st !== undefined };
}

/** The OS refused a write: the path and its reason (e.g. "no space left on device (ENOSPC)"), exit 3. */
export function writeFailed(path: string, field: string, e: unknown): MlaDiffError {
  if (e instanceof MlaDiffError) return e;
  return new MlaDiffError('write-failed', `cannot write ${path}: ${osReason(e)}`, { file: path, field });
}

/** Refuses an output that is one of the run's inputs (by real path or inode), whatever --force says. */
export function refuseInput(t: OutputTarget, inputs: readonly string[]): void {
  if (t.discard) return;
  const out = identify(t.abs);
  for (const input of inputs) {
    if (input === '') continue;
    const id = identify(input);
    // only a file that exists can be lost (a checkpoint's optional tokenizer_config.json may be absent)
    if (id.ino === undefined || !sameFile(out, id)) continue;
    const how = resolve(input) === t.abs ? '' : ` (${out.real === id.real ? 'through a link' : 'a hard link of it'})`;
    throw new MlaDiffError(
      'output-is-input',
      `names ${input}, an input of this run${how}; refusing to write over it, even with --force`,
      { file: t.path, field: t.field },
      'write the output to another file',
    );
  }
}

/** Refuses two outputs that are one file: the second would replace the first. /dev/null may take several. */
export function refuseTwins(targets: readonly OutputTarget[]): void {
  const seen: { t: OutputTarget; id: FileIdentity }[] = [];
  for (const t of targets) {
    if (t.discard) continue;
    const id = identify(t.abs);
    const twin = seen.find((s) => sameFile(s.id, id));
    if (twin)
      throw new MlaDiffError(
        'usage',
        `names the same file as ${twin.t.field}`,
        { file: t.path, field: t.field },
        'give each report its own file',
      );
    seen.push({ t, id });
  }
}

/** The first bytes of an existing output: enough to see mla-diff's marker, never the whole file. */
export function fileHead(abs: string, bytes = 64): string {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
