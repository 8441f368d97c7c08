import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scratchDir, writeInto } from './scratch-dir';

const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write '/x'"), { code: 'ENOSPC' });

// TMPDIR itself full or missing: test/e2e/outputs-disk.test.ts (the env of a spawned CLI)
describe('scratch directories: the OS refusing a write is write-failed, and nothing is left', () => {
  it('a refused write inside removes the directory and names it; any other error passes through, the directory kept', () => {
    const dir = scratchDir('mla-diff-scratch-test-', 'a test directory');
    expect(() =>
      writeInto(dir, 'a test directory', () => {
        writeFileSync(join(dir, 'part'), 'x');
        throw enospc();
      }),
    ).toThrow(expect.objectContaining({ code: 'write-failed', where: { file: dir } }));
    expect(existsSync(dir)).toBe(false);
    const kept = mkdtempSync(join(tmpdir(), 'mla-diff-scratch-test-'));
    expect(() =>
      writeInto(kept, 'a test directory', () => {
        throw new TypeError('a bug');
      }),
    ).toThrow(TypeError);
    expect(existsSync(kept)).toBe(true);
    rmSync(kept, { recursive: true });
  });
});
