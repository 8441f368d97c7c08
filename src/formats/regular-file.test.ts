import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statRegularFile } from './regular-file';

const dir = mkdtempSync(join(tmpdir(), 'mla-diff-regular-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('statRegularFile: an input that is not a regular file is refused before it is read', () => {
  it('a regular file passes; missing and empty paths are file-not-found', () => {
    writeFileSync(join(dir, 'a.yaml'), 'x');
    expect(statRegularFile(join(dir, 'a.yaml'), 'a scenario file').size).toBe(1);
    expect(() => statRegularFile(join(dir, 'none.yaml'), 'a scenario file')).toThrow(expect.objectContaining({ code: 'file-not-found' }));
    expect(() => statRegularFile('', 'a scenario file')).toThrow(expect.objectContaining({ code: 'file-not-found', where: { file: '' } }));
  });

  it('a directory, a FIFO and a character device are file-unreadable naming their path', () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    for (const path of [dir, join(dir, 'fifo'), '/dev/zero'])
      expect(() => statRegularFile(path, 'a scenario file')).toThrow(
        expect.objectContaining({ code: 'file-unreadable', where: { file: path } }),
      );
  });
});
