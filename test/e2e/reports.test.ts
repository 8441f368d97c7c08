import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * End to end: CI reports from the built CLI (`run --junit --markdown`, `--format junit|markdown`)
 * and from scripts/check-scenarios.mjs (the `.ci/run` step). Tiny layers on wasm.
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const TINY_SMOKE = join(ROOT, 'scenarios', 'tiny-smoke.yaml');
const LSE_LAYOUT = join(ROOT, 'fixtures', 'tiny-schedule-lse-layout.yaml');

jest.setTimeout(120_000);

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });

interface Tc {
  '@_name': string;
  failure?: { '@_message': string };
}
interface Doc {
  testsuites: { '@_failures': string; testsuite: { '@_name': string; testcase: Tc[] }[] };
}
function junit(path: string): Doc {
  const xml = readFileSync(path, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml) as Doc;
}

describe('CI reports (e2e)', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-reports-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a planted fault with no expect: writes JUnit with the failing step and a Markdown summary (creating its directory), ' +
      'besides the table',
    async () => {
      const scenario = file('fault.yaml');
      writeFileSync(
        scenario,
        readFileSync(LSE_LAYOUT, 'utf8')
          .replace(/^name: .*$/m, 'name: lse-fault')
          .replace(/^expect: .*$/m, ''),
      );
      const r = await mla(['run', scenario, '--device', 'wasm', '--junit', file('fault.xml'), '--markdown', file('new/dir/fault.md')]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^FAIL full: first divergence at context_lse\[chunk 0\]/m);
      const doc = junit(file('fault.xml'));
      const cases = doc.testsuites.testsuite[0]!.testcase;
      expect(cases.map((t) => [t['@_name'], Boolean(t.failure)])).toEqual([
        ['full step 0', false],
        ['full step 1', true],
        ['full step 2', false],
      ]);
      expect(cases[1]!.failure!['@_message']).toMatch(
        /^first divergence at context_lse\[chunk 0\] \(step 1, request chat\): out-of-tolerance, culprit mha;.*likely cause: /,
      );
      const md = readFileSync(file('new/dir/fault.md'), 'utf8');
      expect(md).toMatch(
        /^\| ❌ \| lse-fault \| full .*first divergence at context\\_lse\\\[chunk 0\\\] \(step 1, chat\): out-of-tolerance, culprit mha \|/m,
      );
      expect(md).toMatch(/^\| context\\_lse\\\[chunk 0\\\] \| out-of-tolerance \| .* \| mha \| introduced \|$/m);
    },
  );

  it('--format junit and markdown print to stdout; the scenario declaring its divergence passes', async () => {
    const x = await mla(['run', LSE_LAYOUT, '--device', 'wasm', '--format', 'junit', '--out', file('lse.xml')]);
    expect(x.exitCode).toBe(0); // its divergence is declared under expect: and met
    expect(junit(file('lse.xml')).testsuites['@_failures']).toBe('0');
    const m = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'markdown', '--quiet']);
    expect(m.exitCode).toBe(0);
    expect(m.stdout).toContain('### mla-diff: 2/2 pass');
  });

  it('--junit never overwrites a file mla-diff did not write, may overwrite its own, and must differ from --out', async () => {
    const mine = file('mine.xml');
    writeFileSync(mine, '<precious/>\n');
    const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--junit', mine]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error [output-exists]');
    expect(r.stderr).toContain('--junit');
    expect(readFileSync(mine, 'utf8')).toBe('<precious/>\n');
    const own = file('own.md');
    for (let i = 0; i < 2; i++)
      expect((await mla(['run', TINY_SMOKE, '--device', 'wasm', '--case', 'all-heads', '--markdown', own, '-q'])).exitCode).toBe(0);
    const same = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--out', own, '--markdown', own]);
    expect(same.exitCode).toBe(2);
    expect(same.stderr).toContain('error [usage]');
  });

  it('check-scenarios (the .ci/run step) writes one combined JUnit file and summary', async () => {
    const out = file('ci');
    const r = await execa('node', ['scripts/check-scenarios.mjs', TINY_SMOKE, LSE_LAYOUT, '--', '--device', 'wasm'], {
      cwd: ROOT,
      reject: false,
      env: { MLA_DIFF_CI_REPORTS: out, GITHUB_STEP_SUMMARY: '' },
    });
    expect(r.exitCode).toBe(0);
    const doc = junit(join(out, 'junit.xml'));
    expect(doc.testsuites.testsuite.map((s) => s['@_name'])).toEqual([
      'tiny-smoke · all-heads',
      'tiny-smoke · tp1-of-2',
      'tiny-schedule-lse-layout · full',
    ]);
    expect(doc.testsuites['@_failures']).toBe('0');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('### mla-diff: 3/3 pass');
  });
});
