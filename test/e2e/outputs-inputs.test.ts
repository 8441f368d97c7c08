import { copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';
import { CLI, mla, ROOT, stackLines, tinyScenario } from './cli-helpers';

/**
 * Outputs never clobber inputs (issue 23): an output naming any file the run reads, by its path, a
 * symbolic link, a hard link or a linked folder, is refused before the run with output-is-input, even
 * with --force, and the input's bytes stay as they were.
 */
describe('outputs never clobber inputs (e2e)', () => {
  let dir = '';
  const file = (name: string) => join(dir, name);
  const write = (name: string, text: string) => {
    writeFileSync(file(name), text);
    return file(name);
  };
  /** Runs the CLI and checks: exit 2, `[code]` in stderr, no stack, and every file in `kept` unchanged. */
  async function refused(args: string[], code: string, kept: string[]): Promise<string> {
    const before = kept.map((f) => readFileSync(f));
    const r = await mla(args);
    expect([r.exitCode, r.stderr.includes(`[${code}]`), stackLines(r.stderr)]).toEqual([2, true, []]);
    kept.forEach((f, i) => expect(readFileSync(f).equals(before[i]!)).toBe(true));
    return r.stderr;
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-outputs-'));
    write('tol.yaml', 'format: mla-diff/tolerances\nversion: 1\nstages:\n  logits: { rel: 1.0e-3 }\n');
    write('s.yaml', tinyScenario('outputs', 'reference: on\ntolerances:\n  file: tol.yaml\n'));
    symlinkSync(file('s.yaml'), file('soft.yaml'));
    linkSync(file('s.yaml'), file('hard.yaml'));
    symlinkSync(dir, file('here'));
    const saved = await mla(['run', file('s.yaml'), '--device', 'cpu', '--format', 'json', '--out', file('golden.json')]);
    expect(saved.exitCode).toBe(0);
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  const run = (...extra: string[]) => ['run', file('s.yaml'), '--device', 'cpu', ...extra];

  it.each([
    ['--out', 'the scenario by its path', () => file('s.yaml')],
    ['--out', 'the scenario through a symbolic link', () => file('soft.yaml')],
    ['--markdown', 'the scenario through a hard link', () => file('hard.yaml')],
    ['--html', 'the scenario through a linked folder', () => join(file('here'), 's.yaml')],
    ['--junit', 'the tolerances file it references', () => file('tol.yaml')],
    ['--write-tolerances', 'the tolerances file it references', () => file('tol.yaml')],
    ['--out', 'its --golden', () => file('golden.json')],
  ])('%s naming %s: output-is-input, even with --force', async (flag, _what, out) => {
    const kept = [file('s.yaml'), file('tol.yaml'), file('golden.json')];
    const err = await refused(run('--golden', file('golden.json'), flag, out(), '--force'), 'output-is-input', kept);
    expect(err).toContain(flag);
  });

  it('--out and --markdown naming one file (also through a link): usage, nothing written', async () => {
    await refused(run('--out', file('r.md'), '--markdown', file('r.md')), 'usage', []);
    symlinkSync(file('r2.md'), file('r2-link.md'));
    await refused(run('--out', file('r2.md'), '--markdown', file('r2-link.md')), 'usage', []);
    expect(existsSync(file('r.md')) || existsSync(file('r2.md'))).toBe(false);
  });

  it('the checkpoint it reads (any shard of a split GGUF): output-is-input; extract --output its input too', async () => {
    const ck = file('ck');
    expect((await mla(['fixtures', ck])).exitCode).toBe(0);
    const shard2 = join(ck, 'small-q4_k-00002-of-00002.gguf');
    write('ck.yaml', 'name: ck\nmodel: {}\nweights:\n  gguf: ck/small-q4_k-00001-of-00002.gguf\nprompt:\n  ids: [1, 2, 3]\n');
    await refused(['run', file('ck.yaml'), '--device', 'cpu', '--out', shard2, '--force'], 'output-is-input', [shard2]);
    linkSync(shard2, file('shard-link.gguf'));
    await refused(
      ['extract', join(ck, 'small-q4_k-00001-of-00002.gguf'), '--layer', '0', '-o', file('shard-link.gguf'), '--force'],
      'output-is-input',
      [shard2],
    );
    const st = join(ck, 'tiny-bf16');
    write('st.yaml', 'name: st\nmodel: {}\nweights:\n  safetensors: ck/tiny-bf16\nprompt:\n  ids: [1, 2, 3]\n');
    const config = join(st, 'config.json');
    await refused(['run', file('st.yaml'), '--device', 'cpu', '--html', config, '--force'], 'output-is-input', [config]);
  });

  it('compare, rejudge, report, sweep and merge refuse their own inputs too', async () => {
    const g = file('golden.json');
    copyFileSync(g, file('new.json'));
    await refused(['compare', g, file('new.json'), '--out', file('new.json'), '--force'], 'output-is-input', [file('new.json')]);
    symlinkSync(g, file('golden-link.json'));
    await refused(['rejudge', g, '--out', file('golden-link.json'), '--force'], 'output-is-input', [g]);
    await refused(['rejudge', g, '--tolerances', file('tol.yaml'), '--out', file('tol.yaml'), '--force'], 'output-is-input', [
      file('tol.yaml'),
    ]);
    await refused(['report', g, '--html', g, '--force'], 'output-is-input', [g]);
    const m = write('m.yaml', 'format: mla-diff/sweep\nversion: 1\nname: m\nbase_file: s.yaml\naxes:\n  seed: [1]\n');
    await refused(['sweep', m, '--out', file('tol.yaml'), '--force'], 'output-is-input', [file('tol.yaml'), m]);
    await refused(['sweep', m, '--out', file('hard.yaml'), '--force'], 'output-is-input', [file('s.yaml')]);
    await refused(['merge', g, '--out', g, '--force'], 'output-is-input', [g]);
  });
});
