import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isMlaDiffError, osReason } from '../../../errors';
import { checkOutputTarget, identify, refuseInput, refuseTwins, sameFile } from './output-path';

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return 'none';
  } catch (e) {
    return isMlaDiffError(e) ? e.code : `other: ${String(e)}`;
  }
};

describe('output paths', () => {
  let dir = '';
  const file = (name: string) => join(dir, name);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-outpath-'));
    writeFileSync(file('in.yaml'), 'name: x\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const refused = (out: string, inputs = [file('in.yaml')]) => codeOf(() => refuseInput(checkOutputTarget(out, '--out'), inputs));

  it('an input is refused by its own path, relative or absolute', () => {
    expect(refused(file('in.yaml'))).toBe('output-is-input');
    expect(refused(relative(process.cwd(), file('in.yaml')))).toBe('output-is-input');
    expect(refused(file('sub/../in.yaml'))).toBe('output-is-input');
    expect(refused(file('other.json'))).toBe('none');
  });

  it('an input is refused through a symbolic link, a hard link, or a linked parent directory', () => {
    symlinkSync(file('in.yaml'), file('soft.yaml'));
    linkSync(file('in.yaml'), file('hard.yaml'));
    symlinkSync(dir, file('parent'));
    expect(refused(file('soft.yaml'))).toBe('output-is-input');
    expect(refused(file('hard.yaml'))).toBe('output-is-input');
    expect(refused(join(file('parent'), 'in.yaml'))).toBe('output-is-input');
    // the input named through the link, the output by its own path
    expect(refused(file('in.yaml'), [join(file('parent'), 'soft.yaml')])).toBe('output-is-input');
  });

  it('an input that does not exist cannot be lost: not refused', () => {
    expect(refused(file('absent.json'), [file('absent.json')])).toBe('none');
  });

  it('empty, a directory, a FIFO, a device, under a file: output-invalid naming the field', () => {
    mkdirSync(file('d'));
    execFileSync('mkfifo', [file('fifo')]);
    for (const p of ['', '  ', file('d'), file('fifo'), '/dev/zero', join(file('in.yaml'), 'x.json'), join(file('in.yaml'), 'a/b.json')]) {
      let where: unknown;
      try {
        checkOutputTarget(p, '--junit');
      } catch (e) {
        where = isMlaDiffError(e) ? [e.code, e.where.field] : e;
      }
      expect([p, where]).toEqual([p, ['output-invalid', '--junit']]);
    }
  });

  it('/dev/null is allowed: the report is discarded; a missing parent is fine (it is made)', () => {
    expect(checkOutputTarget('/dev/null', '--out')).toMatchObject({ discard: true });
    expect(checkOutputTarget(file('new/deeper/out.json'), '--out')).toMatchObject({ discard: false, exists: false });
  });

  it('two outputs that are one file are refused (usage), through a link too; /dev/null twice is fine', () => {
    symlinkSync(file('a.json'), file('b.json'));
    const t = (p: string, f: string) => checkOutputTarget(p, f);
    expect(codeOf(() => refuseTwins([t(file('a.json'), '--out'), t(file('a.json'), '--markdown')]))).toBe('usage');
    writeFileSync(file('a.json'), '{}');
    expect(codeOf(() => refuseTwins([t(file('a.json'), '--out'), t(file('b.json'), '--html')]))).toBe('usage');
    expect(codeOf(() => refuseTwins([t('/dev/null', '--out'), t('/dev/null', '--junit')]))).toBe('none');
  });

  it('identify: a missing file by its parent real path; sameFile by path or inode', () => {
    symlinkSync(dir, file('p'));
    expect(identify(join(file('p'), 'x', 'y.json')).real).toBe(join(identify(dir).real, 'x', 'y.json'));
    linkSync(file('in.yaml'), file('h.yaml'));
    expect(sameFile(identify(file('in.yaml')), identify(file('h.yaml')))).toBe(true);
  });

  it("osReason: the OS's words and code, without Node's prefix and path", () => {
    const e = Object.assign(new Error("ENOSPC: no space left on device, write '/x'"), { code: 'ENOSPC' });
    expect(osReason(e)).toBe('no space left on device (ENOSPC)');
    expect(osReason('odd')).toBe('odd');
  });
});
