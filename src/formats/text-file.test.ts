import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMlaDiffError } from '../errors';
import { readTextFile } from './text-file';

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return 'none';
  } catch (e) {
    return isMlaDiffError(e) ? `${e.code} ${e.where.file}` : `other: ${String(e)}`;
  }
};

describe('readTextFile', () => {
  let dir = '';
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'mla-diff-text-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file whole, as UTF-8', () => {
    writeFileSync(join(dir, 'a.yaml'), 'name: é\n');
    expect(readTextFile(join(dir, 'a.yaml'), 'a scenario file')).toBe('name: é\n');
    writeFileSync(join(dir, 'empty.yaml'), '');
    expect(readTextFile(join(dir, 'empty.yaml'), 'a scenario file')).toBe('');
  });

  it('a device, a FIFO (without blocking) or a directory: file-unreadable naming the file; missing: file-not-found', () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'd'));
    expect(codeOf(() => readTextFile('/dev/zero', 'a run report'))).toBe('file-unreadable /dev/zero');
    expect(codeOf(() => readTextFile(join(dir, 'fifo'), 'a run report'))).toBe(`file-unreadable ${join(dir, 'fifo')}`);
    expect(codeOf(() => readTextFile(join(dir, 'd'), 'a run report'))).toBe(`file-unreadable ${join(dir, 'd')}`);
    expect(codeOf(() => readTextFile(join(dir, 'none'), 'a run report'))).toBe(`file-not-found ${join(dir, 'none')}`);
  });

  it('a file over the limit is limit-exceeded before it is read; at the limit it is read', () => {
    writeFileSync(join(dir, 'big.yaml'), 'x'.repeat(1025));
    expect(codeOf(() => readTextFile(join(dir, 'big.yaml'), 'a scenario file', undefined, 1024))).toBe(
      `limit-exceeded ${join(dir, 'big.yaml')}`,
    );
    expect(readTextFile(join(dir, 'big.yaml'), 'a scenario file', undefined, 1025)).toHaveLength(1025);
  });
});
