import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/** End to end: golden comparison, re-judging and the tolerance ratchet through the built CLI. */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const TINY_SMOKE = join(ROOT, 'scenarios', 'tiny-smoke.yaml');

jest.setTimeout(120_000);

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });
const stackLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

interface Change {
  stage: string;
  path: string;
  kind: string;
}
interface CompareJson {
  format: string;
  version: number;
  verdict: string;
  deviceDiffers: boolean;
  scenarios: { cases: { status: string; outcomeChanged: boolean; firstChange: Change | null; changes: Change[] }[] }[];
}

/** The same scenario name clean and with a planted fault, so the two runs match up. */
const scenario = (extra = '') =>
  'name: golden-tiny\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\n' +
  `prompt:\n  ids: [5, 17, 256, 999, 42]\nreference: on\n${extra}`;
const FAULT = 'faults:\n  - {path: mqa, fault: softmax-scale-latent}\n';

describe('golden runs, rejudge and the ratchet (e2e)', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  const write = (name: string, text: string) => {
    writeFileSync(file(name), text);
    return file(name);
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-golden-'));
    write('clean.yaml', scenario());
    write('fault.yaml', scenario(FAULT));
    const clean = await mla([
      'run',
      file('clean.yaml'),
      '--device',
      'wasm',
      '--format',
      'json',
      '--out',
      file('clean.json'),
      '--write-tolerances',
      file('ratchet.yaml'),
    ]);
    expect(clean.exitCode).toBe(0);
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('compare: a saved run against itself is the same (exit 0)', async () => {
    const r = await mla(['compare', file('clean.json'), file('clean.json')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('SAME');
  });

  it('compare: tiny-smoke on cpu and on wasm is the same within tolerance; the device difference is a note', async () => {
    for (const d of ['cpu', 'wasm'])
      expect((await mla(['run', TINY_SMOKE, '--device', d, '--format', 'json', '--out', file(`smoke-${d}.json`)])).exitCode).toBe(0);
    const r = await mla(['compare', file('smoke-cpu.json'), file('smoke-wasm.json'), '--format', 'json']);
    expect(r.exitCode).toBe(0);
    const c = JSON.parse(r.stdout) as CompareJson;
    expect([c.format, c.version, c.verdict, c.deviceDiffers]).toEqual(['mla-diff/compare', 1, 'same', true]);
  });

  it('run --golden: a planted fault against the clean golden run changes first at the stage it enters, on its path (exit 1)', async () => {
    const r = await mla([
      'run',
      file('fault.yaml'),
      '--device',
      'wasm',
      '--golden',
      file('clean.json'),
      '--format',
      'json',
      '--out',
      file('fault.json'),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/CHANGED — first at logits \(step 0, prompt, path mqa\)/);
    const c = JSON.parse((await mla(['compare', file('clean.json'), file('fault.json'), '--format', 'json'])).stdout) as CompareJson;
    const k = c.scenarios[0]!.cases[0]!;
    expect([k.status, k.outcomeChanged, k.firstChange?.stage, k.firstChange?.path]).toEqual(['changed', true, 'logits', 'mqa']);
    expect(k.changes.every((x) => x.path === 'mqa')).toBe(true);
    const same = await mla(['run', file('clean.yaml'), '--device', 'wasm', '--golden', file('clean.json')]);
    expect(same.exitCode).toBe(0);
    expect(same.stdout).toContain('SAME');
  });

  it.each([
    ['a missing file', 'file-not-found', () => join(dir, 'gone.json')],
    ['a corrupt file', 'report-invalid', () => write('corrupt.json', '{"format": "mla-diff/run", "ver')],
    ['another format', 'report-invalid', () => write('other.json', '{"format": "mla-diff/compare", "version": 1}')],
    [
      'another version',
      'report-version',
      () => write('v3.json', readFileSync(file('clean.json'), 'utf8').replace(/"version": \d+/, '"version": 3')),
    ],
  ] as const)('compare, rejudge and run --golden with %s: exit 2 [%s], no stack trace', async (_what, code, path) => {
    for (const args of [
      ['compare', file('clean.json'), path()],
      ['rejudge', path()],
      ['run', file('clean.yaml'), '--device', 'wasm', '--golden', path()],
    ]) {
      const r = await mla(args);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`[${code}]`);
      expect(stackLines(r.stderr)).toEqual([]);
    }
  });

  it('rejudge: a tighter tolerance flips the clean run (exit 1); a looser one clears the fault (exit 0)', async () => {
    expect((await mla(['rejudge', file('clean.json')])).exitCode).toBe(0);
    const tight = await mla(['rejudge', file('clean.json'), '--rel', '1e-9', '--format', 'json']);
    expect(tight.exitCode).toBe(1);
    expect((JSON.parse(tight.stdout) as { verdict: string; version: number }).verdict).toBe('diverge');
    expect((await mla(['rejudge', file('fault.json')])).exitCode).toBe(1);
    expect((await mla(['rejudge', file('fault.json'), '--rel', '1'])).exitCode).toBe(0);
    expect((await mla(['rejudge', file('clean.json'), '--tolerances', file('ratchet.yaml')])).exitCode).toBe(0);
    expect((await mla(['rejudge', file('clean.json'), '--floor', '0.5'])).exitCode).toBe(1);
    const both = await mla(['rejudge', file('clean.json'), '--rel', '1', '--floor', '2']);
    expect([both.exitCode, both.stderr.includes('[usage]')]).toEqual([2, true]);
    const missing = await mla(['rejudge', file('clean.json'), '--tolerances', file('none.yaml')]);
    expect([missing.exitCode, missing.stderr.includes('[file-not-found]')]).toEqual([2, true]);
  });

  it('the ratchet: referenced by a scenario it passes; a looser inline value needs --allow-looser', async () => {
    const text = readFileSync(file('ratchet.yaml'), 'utf8');
    expect(text).toMatch(
      /^# mla-diff tolerances[\s\S]*format: mla-diff\/tolerances\nversion: 1\nscenario: "golden-tiny"\ndevice: wasm\nmargin: 2\nstages:\n/,
    );
    write('ratcheted.yaml', scenario('tolerances: {file: ratchet.yaml}\n'));
    expect((await mla(['run', file('ratcheted.yaml'), '--device', 'wasm'])).exitCode).toBe(0);
    write('looser.yaml', scenario('tolerances:\n  file: ratchet.yaml\n  stages:\n    logits: {rel: 1.0e-3}\n'));
    const refused = await mla(['run', file('looser.yaml'), '--device', 'wasm']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/\[tolerance-looser\] .*looser\.yaml:10:.*tolerances\.stages\.logits/);
    expect((await mla(['run', file('looser.yaml'), '--device', 'wasm', '--allow-looser'])).exitCode).toBe(0);
  });

  it("--write-tolerances: never over a user's file without --force; never from a divergent run; one scenario only", async () => {
    write('mine.yaml', 'my notes\n');
    const refused = await mla(['run', file('clean.yaml'), '--device', 'wasm', '--write-tolerances', file('mine.yaml')]);
    expect([refused.exitCode, refused.stderr.includes('[output-exists]')]).toEqual([2, true]);
    expect(readFileSync(file('mine.yaml'), 'utf8')).toBe('my notes\n');
    expect((await mla(['run', file('clean.yaml'), '--device', 'wasm', '--write-tolerances', file('mine.yaml'), '--force'])).exitCode).toBe(
      0,
    );
    expect((await mla(['run', file('clean.yaml'), '--device', 'wasm', '--write-tolerances', file('ratchet.yaml')])).exitCode).toBe(0);
    const bad = await mla(['run', file('fault.yaml'), '--device', 'wasm', '--write-tolerances', file('bad.yaml')]);
    expect([bad.exitCode, bad.stderr.includes('[ratchet-impossible]'), existsSync(file('bad.yaml'))]).toEqual([2, true, false]);
    const two = await mla(['run', file('clean.yaml'), file('clean.yaml'), '--device', 'wasm', '--write-tolerances', file('two.yaml')]);
    expect([two.exitCode, two.stderr.includes('[usage]')]).toEqual([2, true]);
  });
});
