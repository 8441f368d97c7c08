import { fstatSync, mkdtempSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Libc } from './native-stderr';
import { CAPTURE_LIMIT, loadLibc, stderrCapture } from './native-stderr';

// The identity of what fd 2 points at: the same before and after a capture, another file during it.
const fd2 = () => {
  const s = fstatSync(2);
  return `${s.dev}:${s.ino}`;
};

const linux = process.platform === 'linux' && loadLibc() !== null;
const onLinux = linux ? it : it.skip;

describe('stderrCapture', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'native-stderr-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is null where libc does not load (the callers keep the child probe)', () => {
    expect(loadLibc('darwin')).toBeNull();
    expect(loadLibc('win32')).toBeNull();
    expect(stderrCapture(null)).toBeNull();
  });

  onLinux('captures what is written to fd 2 itself (as native code writes), puts fd 2 back and leaves no file', async () => {
    const before = fd2();
    let during = '';
    const seen: string[] = [];
    const value = await stderrCapture(loadLibc(), dir)!(
      async () => {
        writeSync(2, 'Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced\n');
        await new Promise((r) => setTimeout(r, 5)); // the window spans awaits
        writeSync(2, 'MESA: warning: second line\n');
        during = fd2();
        return 42;
      },
      (t) => seen.push(t),
    );
    expect(value).toBe(42);
    expect(seen).toEqual(['Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced\nMESA: warning: second line\n']);
    expect(during).not.toBe(before);
    expect(fd2()).toBe(before);
    expect(readdirSync(dir)).toEqual([]);
  });

  onLinux("restores fd 2 and hands over the text when f throws, then rethrows f's error", async () => {
    const before = fd2();
    const seen: string[] = [];
    const failing = stderrCapture(loadLibc(), dir)!(
      async () => {
        writeSync(2, 'vkCreateInstance failed\n');
        throw new Error('no adapter');
      },
      (t) => seen.push(t),
    );
    await expect(failing).rejects.toThrow('no adapter');
    expect(seen).toEqual(['vkCreateInstance failed\n']);
    expect(fd2()).toBe(before);
  });

  onLinux('keeps at most CAPTURE_LIMIT bytes, and captures nothing (into /dev/null) where no temp file can be made', async () => {
    const seen: string[] = [];
    await stderrCapture(loadLibc(), dir)!(
      async () => {
        writeSync(2, 'x'.repeat(CAPTURE_LIMIT + 10));
      },
      (t) => seen.push(t),
    );
    await stderrCapture(loadLibc(), join(dir, 'no-such-dir'))!(
      async () => {
        writeSync(2, 'lost\n');
      },
      (t) => seen.push(t),
    );
    expect(seen.map((t) => t.length)).toEqual([CAPTURE_LIMIT, 0]);
  });

  it('runs f as is where fd 2 cannot be duplicated (closed): nothing to capture', async () => {
    const calls: string[] = [];
    const libc: Libc = {
      dup: () => -1,
      dup2: () => (calls.push('dup2'), 0),
      close: () => (calls.push('close'), 0),
    };
    const seen: string[] = [];
    expect(
      await stderrCapture(libc, dir)!(
        async () => 7,
        (t) => seen.push(t),
      ),
    ).toBe(7);
    expect({ calls, seen, files: readdirSync(dir) }).toEqual({ calls: [], seen: [], files: [] });
  });
});
