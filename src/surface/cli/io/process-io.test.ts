import * as fs from 'node:fs';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMlaDiffError } from '../../../errors';
import { commandSeconds, writeOutput } from './process-io';

// renameSync made to fail once: a throw between the temp file's write and its rename
jest.mock('node:fs', () => {
  const real = jest.requireActual<typeof fs>('node:fs');
  return { ...real, renameSync: jest.fn(real.renameSync) };
});

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return 'none';
  } catch (e) {
    return isMlaDiffError(e) ? e.code : `other: ${String(e)}`;
  }
};

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

  it('a directory as the target is output-invalid, before any temp file', () => {
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken', 'x'), '');
    expect(codeOf(() => writeOutput(join(dir, 'taken'), 'mla-diff report', { ...opts, force: true }))).toBe('output-invalid');
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('a throw between the write and the rename removes the temp file and is write-failed naming the path and reason', () => {
    jest.mocked(fs.renameSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('EXDEV: cross-device link not permitted, rename'), { code: 'EXDEV' });
    });
    {
      let err: unknown;
      try {
        writeOutput(join(dir, 'r.json'), '{}', opts);
      } catch (e) {
        err = e;
      }
      expect(isMlaDiffError(err) && [err.code, err.where.file, err.where.field, err.message]).toEqual([
        'write-failed',
        join(dir, 'r.json'),
        '--out',
        `cannot write ${join(dir, 'r.json')}: cross-device link not permitted (EXDEV)`,
      ]);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('never over an input, even with --force; a stale temp name is never reused; /dev/null discards', () => {
    writeFileSync(join(dir, 's.yaml'), 'name: s\n');
    linkSync(join(dir, 's.yaml'), join(dir, 'link.yaml'));
    const inputs = [join(dir, 's.yaml')];
    expect(codeOf(() => writeOutput(join(dir, 'link.yaml'), 'mla-diff report', { force: true, inputs }))).toBe('output-is-input');
    expect(readFileSync(join(dir, 's.yaml'), 'utf8')).toBe('name: s\n');
    writeFileSync(join(dir, `out.txt.tmp-${process.pid}`), 'not ours');
    writeOutput(join(dir, 'out.txt'), 'mla-diff report', opts);
    expect(readFileSync(join(dir, `out.txt.tmp-${process.pid}`), 'utf8')).toBe('not ours');
    expect(readdirSync(dir).sort()).toEqual(['link.yaml', 'out.txt', `out.txt.tmp-${process.pid}`, 's.yaml']);
    writeOutput('/dev/null', 'mla-diff report', opts);
    writeOutput('/dev/null', 'mla-diff report', opts);
  });

  it('never over a file mla-diff did not write, without --force', () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(codeOf(() => writeOutput(join(dir, 'notes.txt'), 'mla-diff report', opts))).toBe('output-exists');
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
