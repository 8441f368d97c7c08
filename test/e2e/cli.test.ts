import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/**
 * End to end: the built CLI (dist/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const TINY_SMOKE = join(ROOT, 'scenarios', 'tiny-smoke.yaml');

jest.setTimeout(120_000);

function mla(args: string[], env: NodeJS.ProcessEnv = {}): Promise<execa.ExecaReturnValue> {
  return execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1', ...env } });
}

/** Lines of a JavaScript stack trace (`    at fn (/path/file.js:12:3)`). */
const jsStackLines = (text: string) => text.split('\n').filter((l) => /^\s+at .*\.(c?js|mjs|ts):\d+:\d+\)?$/.test(l));
/** Any line shaped like a stack frame. */
const stackLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

interface RunJson {
  format: string;
  version: number;
  verdict: 'agree' | 'diverge';
  device: { name: string };
  cases: { trace: { name: string }; comparison: { verdict: string; firstDivergence: { stage: string; culprit: string } | null } }[];
}

const tinyScenario = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\n${extra}`;

describe('mla-diff CLI (e2e)', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  const write = (name: string, text: string) => {
    writeFileSync(file(name), text);
    return file(name);
  };

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-e2e-'));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('runs', () => {
    it.each(['wasm', 'cpu'])('tiny-smoke on %s passes (exit 0)', async (device) => {
      const r = await mla(['run', TINY_SMOKE, '--device', device]);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^PASS all-heads/m);
      expect(r.stdout).toMatch(/^PASS tp1-of-2/m);
      expect(r.stdout).not.toMatch(/\u001b\[/);
    });

    it('--format json is the versioned run report', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: 1, verdict: 'agree', device: { name: 'wasm' } });
      expect(j.cases.map((c) => [c.trace.name, c.comparison.verdict, c.comparison.firstDivergence])).toEqual([
        ['all-heads', 'agree', null],
        ['tp1-of-2', 'agree', null],
      ]);
    });

    it.each([
      ['mqa', 'softmax-scale-latent', 'logits'],
      ['mha', 'rope-neox', 'q_pe'],
      ['mqa', 'kv-norm-skipped', 'kv_c_normed'],
      ['mha', 'lse-base-2', 'lse'],
    ])('a %s fault %s exits 1 and first diverges at %s, culprit the faulty path', async (path, fault, stage) => {
      const scenario = write(`fault-${fault}.yaml`, tinyScenario(`fault-${fault}`, `faults: [{path: ${path}, fault: ${fault}}]\n`));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: 1, verdict: 'diverge', device: { name: 'wasm' } });
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({ stage, culprit: path });
    });

    it('a fault in table format exits 1 and says FAIL', async () => {
      const scenario = write('fault-table.yaml', tinyScenario('fault-table', 'faults: [{path: mqa, fault: softmax-scale-latent}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^FAIL full: .*logits/m);
      expect(r.stdout).toContain('◀ first');
    });

    it('--quiet prints nothing; the exit code tells', async () => {
      const scenario = write('quiet.yaml', tinyScenario('quiet', 'faults: [{path: mha, fault: rope-neox}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--quiet']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
    });

    it('--case NAME runs only that case', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'tp1-of-2']);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(r.stdout) as RunJson).cases.map((c) => c.trace.name)).toEqual(['tp1-of-2']);
    });

    it('an unknown --case name exits 2', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--case', 'no-such-case']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/error \[invalid-value\]/);
      expect(r.stdout).toBe('');
      expect(stackLines(r.stderr)).toEqual([]);
    });
  });

  describe('bad input exits 2 with an error code and no stack trace', () => {
    // [what, error code, where the message must point (or null), arguments]; a thunk, as files are written in the temp dir.
    const cases: [string, string, RegExp | null, () => string[]][] = [
      ['a missing file', 'file-not-found', /missing\.yaml/, () => ['run', file('missing.yaml'), '--device', 'wasm']],
      ['malformed YAML', 'yaml-syntax', /malformed\.yaml:\d+/,
        () => ['run', write('malformed.yaml', 'name: t\nmodel: {preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['an unknown key', 'unknown-key', /bad\.yaml:3\b/,
        () => ['run', write('bad.yaml', 'name: t\nmodel:\n  hiden_size: 96\n  preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['an unknown preset', 'unknown-preset', /preset\.yaml:2\b/,
        () => ['run', write('preset.yaml', 'name: t\nmodel: {preset: glm-6}\nprompt: {ids: [1]}\n'), '--device', 'wasm']],
      ['a directory', 'file-unreadable', null, () => ['run', dir, '--device', 'wasm']],
      ['--device nonsense', 'usage', null, () => ['run', TINY_SMOKE, '--device', 'nonsense']],
      ['an unknown option', 'usage', null, () => ['run', TINY_SMOKE, '--devcie', 'wasm']],
      ['an unknown command', 'usage', null, () => ['frobnicate']],
      ['no command', 'usage', null, () => []],
      ['run without a scenario', 'usage', null, () => ['run']],
    ];

    it.each(cases)('%s → error [%s]', async (_what, code, where, args) => {
      const r = await mla(args());
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`error [${code}]`);
      if (where) expect(r.stderr).toMatch(where);
      expect(stackLines(r.stderr)).toEqual([]);
      expect(r.stderr).not.toContain('internal error');
    });

    it('a bad scenario among good ones fails before anything runs', async () => {
      const bad = write('bad-second.yaml', 'name: t\nmodel: {preset: tiny}\nprompt: {ids: [1000]}\n');
      const r = await mla(['run', TINY_SMOKE, bad, '--device', 'wasm']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [invalid-value]');
      expect(r.stdout).toBe('');
    });

    it('--verbose adds the stack trace', async () => {
      const r = await mla(['run', write('verbose.yaml', 'name: t\nmodel:\n  preset: tiny\n  hiden_size: 1\nprompt: {ids: [1]}\n'), '--device', 'wasm', '--verbose']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [unknown-key]');
      expect(stackLines(r.stderr).length).toBeGreaterThan(0);
    });
  });

  describe('help and stages', () => {
    it('--help exits 0 and shows examples', async () => {
      const r = await mla(['--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('mla-diff run');
    });

    it('run --help exits 0 and shows examples', async () => {
      const r = await mla(['run', '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('--device');
    });

    it('stages exits 0 and lists the stages', async () => {
      const r = await mla(['stages']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('ql_nope');
      expect(r.stdout).toContain('W_UK_T');
      expect(r.stdout).toContain('softmax-scale-latent');
    });

    it('stages --format json is parseable', async () => {
      const r = await mla(['stages', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as { stages: Record<string, unknown>; faults: Record<string, unknown> };
      expect(Object.keys(j.stages)).toEqual(expect.arrayContaining(['ql_nope', 'W_UK_T', 'logits']));
      expect(Object.keys(j.faults)).toEqual(expect.arrayContaining(['rope-neox', 'lse-base-2']));
    });
  });

  describe('--out', () => {
    it('writes the JSON report to the file and one line to stdout', async () => {
      const out = file('report.json');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^PASS tiny-smoke/);
      expect(r.stdout).toContain(out);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'mla-diff/run', version: 1, device: { name: 'wasm' } });
    });

    it('writes a table report as plain text', async () => {
      const out = file('report.txt');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--out', out], { FORCE_COLOR: '1', NO_COLOR: undefined });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const text = readFileSync(out, 'utf8');
      expect(text).toMatch(/^mla-diff report/);
      expect(text).toMatch(/^PASS all-heads/m);
      expect(text).not.toMatch(/\u001b\[/);
    });

    it('a diverging run writes the report and exits 1 with a FAIL line', async () => {
      const scenario = write('fault-out.yaml', tinyScenario('fault-out', 'faults: [{path: mqa, fault: kv-norm-skipped}]\n'));
      const out = file('fault-out.json');
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^FAIL fault-out: .*kv_c_normed.*mqa/);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'kv_c_normed', culprit: 'mqa' });
    });

    it('refuses to overwrite a file mla-diff did not write (output-exists), leaving it unchanged', async () => {
      const out = write('precious.json', '{"mine": true}\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-exists]');
      expect(stackLines(r.stderr)).toEqual([]);
      expect(readFileSync(out, 'utf8')).toBe('{"mine": true}\n');
    });

    it.each([
      ['a JSON report', ['--format', 'json']],
      ['a table report', []],
    ])('may overwrite %s it wrote before', async (_what, first) => {
      const out = file(`again-${first.length}.out`);
      expect((await mla(['run', TINY_SMOKE, '--device', 'wasm', ...first, '--out', out])).exitCode).toBe(0);
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'all-heads', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases).toHaveLength(1);
    });

    it('--force overwrites a file mla-diff did not write', async () => {
      const out = write('forced.json', 'not a report\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out, '--force']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'mla-diff/run' });
    });

    it.each([[[]], [['--force']]])('never over the input scenario (%p)', async (extra) => {
      const scenario = file(`input-${extra.length}.yaml`);
      copyFileSync(TINY_SMOKE, scenario);
      const before = readFileSync(scenario, 'utf8');
      const r = await mla(['run', scenario, '--device', 'wasm', '--out', scenario, ...extra]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-exists]');
      expect(readFileSync(scenario, 'utf8')).toBe(before);
    });
  });

  describe('webgpu', () => {
    it('tiny-smoke on webgpu passes, or fails cleanly as device-unavailable', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu']);
      if (process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || r.exitCode === 0) {
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toMatch(/^PASS all-heads/m);
      } else {
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain('error [device-unavailable]');
        expect(jsStackLines(r.stderr)).toEqual([]);
      }
    });

    it('without a Vulkan driver: exit 2, device-unavailable, no crash, no stack trace', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu'], { VK_DRIVER_FILES: '/nonexistent.json', VK_ICD_FILENAMES: '/nonexistent.json' });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [device-unavailable]');
      expect(r.stderr).not.toContain('internal error');
      // Dawn itself logs a native source location (`at CheckVkSuccessImpl (…VulkanError.cpp:106)`);
      // what must not appear is a JavaScript stack.
      expect(jsStackLines(r.stderr)).toEqual([]);
      expect(r.stdout).toBe('');
    });
  });
});
