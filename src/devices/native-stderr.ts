import { closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The three libc calls a redirect of fd 2 needs. */
export interface Libc {
  dup(fd: number): number;
  dup2(from: number, to: number): number;
  close(fd: number): number;
}

// The part of koffi's API used here (as in kernels/host-blas.ts: its typings are an ES module, this build is CommonJS).
type KoffiLib = { func(signature: string): (...args: number[]) => unknown };
type Koffi = { load(path: string): KoffiLib };

/**
 * glibc through koffi, or null where either does not load (macOS, Windows, musl, a platform koffi has no build for):
 * there the callers keep asking Dawn in a child process (select.ts probeAdapter).
 */
export function loadLibc(platform: NodeJS.Platform = process.platform): Libc | null {
  if (platform !== 'linux') return null;
  try {
    const lib = (require('koffi') as Koffi).load('libc.so.6');
    const [dup, dup2, close] = ['int dup(int fd)', 'int dup2(int from, int to)', 'int close(int fd)'].map((s) => lib.func(s));
    return {
      dup: (fd) => Number(dup!(fd)),
      dup2: (from, to) => Number(dup2!(from, to)),
      close: (fd) => Number(close!(fd)),
    };
  } catch {
    return null;
  }
}

/** Runs f with fd 2 captured; `captured` receives what was written to fd 2 meanwhile, before f's result or error. */
export type StderrCapture = <T>(f: () => Promise<T>, captured: (text: string) => void) => Promise<T>;

/** What stays of the capture's text: Dawn and the Vulkan loader write a few lines; a runaway driver must not fill the log. */
export const CAPTURE_LIMIT = 64 * 1024;

/**
 * The process's native stderr (fd 2) sent to a temp file while f runs, put back as f settles: Dawn, Mesa and the
 * Vulkan loader write their warnings with fprintf(stderr) from C++, which no JS stream sees. A file rather than a
 * pipe, since nobody would read a pipe while f runs and a chatty driver would block on a full one; unlinked at once,
 * so that nothing is left in /tmp even if the process dies meanwhile (/dev/null where no temp file can be made).
 * The window spans awaits: what JS writes to process.stderr meanwhile is captured too where that stream writes to fd 2
 * (a file, a pipe), not on a terminal (libuv writes to a tty through a descriptor of its own).
 * null without libc.
 */
export function stderrCapture(libc: Libc | null = loadLibc(), dir: string = tmpdir()): StderrCapture | null {
  if (!libc) return null;
  return async (f, captured) => {
    const sink = openSink(dir);
    const saved = libc.dup(2);
    if (saved < 0 || libc.dup2(sink, 2) < 0) {
      // fd 2 closed (nothing would reach a user anyway) or not redirectable: run as is
      if (saved >= 0) libc.close(saved);
      closeSync(sink);
      return f();
    }
    try {
      return await f();
    } finally {
      libc.dup2(saved, 2);
      libc.close(saved);
      try {
        captured(readBack(sink));
      } finally {
        closeSync(sink);
      }
    }
  };
}

function openSink(dir: string): number {
  const path = join(dir, `mla-diff-stderr-${process.pid}-${Date.now().toString(36)}`);
  try {
    const fd = openSync(path, 'wx+', 0o600); // O_EXCL: never someone else's file
    unlinkSync(path);
    return fd;
  } catch {
    return openSync('/dev/null', 'w');
  }
}

/** From offset 0 (pread): fd 2 shared the file's offset and left it at the end. */
function readBack(fd: number): string {
  const size = Math.min(fstatSync(fd).size, CAPTURE_LIMIT);
  const buf = Buffer.alloc(size);
  const n = size ? readSync(fd, buf, 0, size, 0) : 0;
  return buf.toString('utf8', 0, n);
}
