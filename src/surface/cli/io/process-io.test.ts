import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMlaDiffError } from '../../../errors';
import { commandSeconds, writeOutput } from './process-io';

describe('writeOutput', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mla-diff-io-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const opts = { force: false, inputs: [] };

  it('writes the text (with its final newline) through a temp file that does not stay', () => {
    writeOutput(join(dir, 'sub/run.txt'), 'mla-diff report', opts);
    expect(readFileSync(join(dir, 'sub/run.txt'), 'utf8')).toBe('mla-diff report\n');
    expect(readdirSync(join(dir, 'sub'))).toEqual(['run.txt']);
  });

  it('a write that fails (the target is a directory) leaves no temp file', () => {
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken', 'x'), '');
    expect(() => writeOutput(join(dir, 'taken'), 'mla-diff report', { ...opts, force: true })).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('never over a file mla-diff did not write, without --force', () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    let code = '';
    try {
      writeOutput(join(dir, 'notes.txt'), 'mla-diff report', opts);
    } catch (e) {
      code = isMlaDiffError(e) ? e.code : 'other';
    }
    expect(code).toBe('output-exists');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('commandSeconds', () => {
  it('counts from the process start, so it is never less than the time this test has run', () => {
    const t0 = commandSeconds();
    expect(t0).toBeGreaterThan(0);
    expect(commandSeconds()).toBeGreaterThanOrEqual(t0);
  });
});
