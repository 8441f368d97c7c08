import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';

/**
 * A small file system for e2e tests of a full disk (ENOSPC) or a read-only one (EROFS): a tmpfs of a
 * few kilobytes. As root it is mounted once for the suite ('mount'); otherwise each command runs in a
 * user and mount namespace of its own (`unshare -rm`, 'unshare') where the tmpfs is mounted fresh. When
 * neither works (a container without the capability, macOS), smallDisk says why and the test skips.
 *
 *   const disk = smallDisk({ bytes: 64 * 1024 });
 *   if ('skip' in disk) return console.warn(disk.skip);
 *   const r = await disk.run(['node', CLI, 'run', s, '--out', join(disk.dir, 'r.json')], { fill: true });
 *   r.exitCode, r.stderr, r.listing   // the names in disk.dir once the command ended (no *.tmp-* left)
 *   disk.release();
 */
export type DiskMode = 'mount' | 'unshare';

export interface DiskRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The names in the disk's directory after the command, as it left them (`fill` included). */
  listing: string[];
}

export interface SmallDisk {
  /** Where the tmpfs is mounted (in 'unshare' mode: inside each run's namespace only). */
  dir: string;
  mode: DiskMode;
  /**
   * Runs argv with the disk mounted. `fill`: first write zeros to `fill` in dir until the disk is full, so
   * that the command's first write of any size fails with ENOSPC. `files`: written into dir before it runs.
   */
  run(
    argv: string[],
    opts?: { fill?: boolean; files?: Record<string, string>; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
  ): Promise<DiskRun>;
  /** Unmounts and removes the directory. */
  release(): void;
}

export interface DiskOptions {
  /** Size of the tmpfs (default 64 KiB). */
  bytes?: number;
  /** Mounted read-only: every write fails with EROFS. */
  readOnly?: boolean;
}

const mountArgs = (o: Required<DiskOptions>, dir: string) => ['-t', 'tmpfs', '-o', `size=${o.bytes}`, 'tmpfs', dir];

/**
 * The script each run goes through, the same in both modes: mount (in a namespace) or empty the disk,
 * write the files, fill the disk, remount it read-only when asked, run the command, list the directory
 * into a file outside it, exit with the command's status. Arguments: $1 dir, $2 listing file, $3 mount
 * (1 or 0), $4 fill (1 or 0), $5 read-only (1 or 0), $6 size in bytes, $7 files JSON path, then the command.
 */
const SCRIPT = [
  'set -u; dir=$1; list=$2; domount=$3; fill=$4; ro=$5; size=$6; files=$7; shift 7',
  'if [ "$domount" = 1 ]; then mount -t tmpfs -o "size=$size" tmpfs "$dir" || exit 97;',
  'else mount -o remount,rw "$dir" 2>/dev/null; find "$dir" -mindepth 1 -delete; fi',
  'if [ -s "$files" ]; then node -e \'const fs=require("fs"),p=require("path");' +
    'for(const[k,v]of Object.entries(JSON.parse(fs.readFileSync(process.argv[1],"utf8"))))' +
    'fs.writeFileSync(p.join(process.argv[2],k),v)\' "$files" "$dir" || exit 98; fi',
  'if [ "$fill" = 1 ]; then cat /dev/zero > "$dir/fill" 2>/dev/null; fi',
  'if [ "$ro" = 1 ]; then mount -o remount,ro "$dir" || exit 96; fi',
  '"$@"; rc=$?',
  'ls -A "$dir" > "$list"',
  'exit $rc',
].join('\n');

function probe(mode: DiskMode, dir: string): boolean {
  try {
    if (mode === 'mount') {
      execFileSync('mount', mountArgs({ bytes: 4096, readOnly: false }, dir), { stdio: 'ignore' });
      execFileSync('umount', [dir], { stdio: 'ignore' });
    } else {
      execFileSync('unshare', ['-rm', 'mount', ...mountArgs({ bytes: 4096, readOnly: false }, dir)], { stdio: 'ignore' });
    }
    return true;
  } catch {
    return false;
  }
}

export function smallDisk(options: DiskOptions = {}): SmallDisk | { skip: string } {
  if (process.platform !== 'linux') return { skip: `a tmpfs needs Linux; ${process.platform} skips the full-disk tests` };
  const o: Required<DiskOptions> = { bytes: options.bytes ?? 64 * 1024, readOnly: options.readOnly ?? false };
  const base = mkdtempSync(join(tmpdir(), 'mla-diff-disk-'));
  const dir = join(base, 'disk');
  mkdirSync(dir);
  const root = process.getuid?.() === 0;
  const mode: DiskMode | undefined = root && probe('mount', dir) ? 'mount' : probe('unshare', dir) ? 'unshare' : undefined;
  if (!mode) {
    rmSync(base, { recursive: true, force: true });
    return { skip: 'cannot mount a tmpfs here (not root, and `unshare -rm` is not allowed): the full-disk tests skip' };
  }
  if (mode === 'mount') execFileSync('mount', mountArgs(o, dir));
  let n = 0;
  return {
    dir,
    mode,
    async run(argv, opts = {}) {
      n += 1;
      const list = join(base, `listing-${n}`);
      const files = join(base, `files-${n}.json`);
      writeFileSync(files, opts.files ? JSON.stringify(opts.files) : '');
      const flags = [mode === 'unshare', opts.fill ?? false, o.readOnly].map((f) => (f ? '1' : '0'));
      const prefix = mode === 'unshare' ? ['unshare', '-rm'] : [];
      const [file, ...args] = [...prefix, 'sh', '-c', SCRIPT, 'sh', dir, list, ...flags, String(o.bytes), files, ...argv];
      const r = await execa(file!, args, {
        reject: false,
        cwd: opts.cwd,
        env: { NO_COLOR: '1', ...opts.env },
        timeout: opts.timeoutMs ?? 120_000,
      });
      let listing: string[] = [];
      try {
        listing = readFileSync(list, 'utf8').split('\n').filter(Boolean);
      } catch {
        // the script did not get as far as listing
      }
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, listing };
    },
    release() {
      if (mode === 'mount') {
        try {
          execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
        } catch {
          // already gone
        }
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}
