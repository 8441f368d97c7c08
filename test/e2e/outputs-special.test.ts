import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';
import { CLI, mla, ROOT, stackLines, TINY_SMOKE } from './cli-helpers';

/**
 * Special files (issue 23): a device, FIFO or directory as an input is refused by path (file-unreadable),
 * never read (/dev/zero filled 16 GB, a FIFO blocked forever); as an output, with an empty name or under
 * a file, output-invalid naming the flag, before the run. /dev/null as an output discards the report.
 */
describe('special files as inputs and outputs (e2e)', () => {
  let dir = '';
  const file = (name: string) => join(dir, name);
  /** Exit 2 within 30 s, `[code]` and `field` in stderr, no stack. */
  async function refused(args: string[], code: string, field = ''): Promise<void> {
    const r = await execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' }, timeout: 30_000 });
    expect([args.join(' '), r.exitCode, r.stderr.includes(`[${code}]`), r.stderr.includes(field), stackLines(r.stderr)]).toEqual([
      args.join(' '),
      2,
      true,
      true,
      [],
    ]);
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-special-'));
    execFileSync('mkfifo', [file('fifo')]);
    mkdirSync(file('d'));
    writeFileSync(file('plain.txt'), 'x\n');
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('inputs: /dev/zero, a FIFO or a directory as a scenario, a saved report or a shard: file-unreadable', async () => {
    for (const input of ['/dev/zero', file('fifo'), file('d')]) {
      await refused(['run', input, '--device', 'cpu'], 'file-unreadable', input);
      await refused(['report', input, '--html', file('r.html')], 'file-unreadable', input);
      await refused(['merge', input], 'file-unreadable', input);
    }
  });

  it.each([
    ['--out', ''],
    ['--out', '/dev/zero'],
    ['--junit', 'fifo'],
    ['--markdown', 'd'],
    ['--html', 'plain.txt/r.html'],
    ['--write-tolerances', 'plain.txt/a/b.yaml'],
  ])('outputs: run %s %p is output-invalid naming the flag, before the run', async (flag, name) => {
    const path = name === '' || name.startsWith('/') ? name : file(name);
    await refused(['run', TINY_SMOKE, '--device', 'cpu', flag, path], 'output-invalid', flag);
  });

  it('outputs of the other commands: the same rules', async () => {
    await refused(['report', TINY_SMOKE, '--html', ''], 'output-invalid', '--html');
    await refused(['compare', TINY_SMOKE, TINY_SMOKE, '--out', file('fifo')], 'output-invalid', '--out');
    await refused(['rejudge', TINY_SMOKE, '--out', '/dev/zero'], 'output-invalid', '--out');
    await refused(['fixtures', file('plain.txt')], 'output-invalid', 'dir');
    await refused(['extract', TINY_SMOKE, '--layer', '0', '-o', '/dev/null'], 'output-invalid', '--output');
  });

  it('/dev/null discards the report (several outputs may name it); nothing else is written', async () => {
    const r = await mla(['run', TINY_SMOKE, '--device', 'cpu', '--out', '/dev/null', '--junit', '/dev/null', '--quiet']);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(existsSync('/dev/null')).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['d', 'fifo', 'plain.txt']);
  });
});
