import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import execa from 'execa';

/**
 * The package as a user installs it: `npm pack` of the built tree, the tarball unpacked into a fresh
 * project's node_modules/mla-diff (its dependencies linked from this repository's node_modules, so
 * no network), then a plain node script there that `require('mla-diff')`s it by name: the public
 * API's key exports, the `mla-diff/devices` subpath, no deep imports past `exports`, and
 * scenarios/tiny-smoke.yaml from the package run on wasm to verdict agree.
 */
const ROOT = resolve(__dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

jest.setTimeout(120_000);

let dir: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) await execa('npm', ['run', 'build'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-package-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Unpacks the tarball into `project`/node_modules/mla-diff and links its dependencies from the repository. */
async function install(tarball: string, project: string): Promise<string> {
  const into = join(project, 'node_modules', PKG.name);
  mkdirSync(into, { recursive: true });
  await execa('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
  for (const dep of [...Object.keys(PKG.dependencies), ...Object.keys(PKG.optionalDependencies ?? {})]) {
    const from = join(ROOT, 'node_modules', dep);
    if (!existsSync(from)) continue; // an optional dependency not installed here
    const link = join(project, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(from, link, 'dir');
  }
  return into;
}

const SCRIPT = `
const assert = require('node:assert');
const { dirname, join } = require('node:path');
const api = require('mla-diff');
const names = ['loadScenario', 'parseScenario', 'selectRuntime', 'runScenario', 'loadRunReport', 'rejudgeRun', 'compareRuns',
  'renderRun', 'renderJUnit', 'renderMarkdown', 'renderHtml', 'makeStyle', 'MlaDiffError', 'isMlaDiffError', 'EXIT', 'EXIT_FOR',
  'STAGES', 'STAGE_NAMES', 'PATH_NAMES', 'FAULTS', 'FAULT_NAMES', 'DEVICE_NAMES', 'RUN_FORMAT', 'RUN_VERSION', 'COMPARE_FORMAT'];
const missing = names.filter((n) => api[n] === undefined);
assert.deepStrictEqual(missing, []);
assert.ok(api.STAGE_NAMES.includes('o_proj_out') && api.STAGES.o_proj_out.doc.length > 0);
assert.strictEqual(typeof require('mla-diff/devices').flashAttention, 'function');
assert.throws(() => require('mla-diff/dist/index.js'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
const root = dirname(require.resolve('mla-diff/package.json'));
const scenario = api.loadScenario(join(root, 'scenarios', 'tiny-smoke.yaml'));
(async () => {
  const runtime = await api.selectRuntime('wasm');
  const report = await api.runScenario(scenario, { runtime, toolVersion: require('mla-diff/package.json').version, worker: false });
  const junit = api.renderJUnit([report]);
  console.log(JSON.stringify({ exports: Object.keys(api).length, verdict: report.verdict, cases: report.cases.length,
    device: report.device.name, junit: junit.startsWith(api.JUNIT_MARKER), bin: require('mla-diff/package.json').bin['mla-diff'] }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

it('npm pack, installed by name in a fresh project: the API loads and tiny-smoke agrees on wasm', async () => {
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  const { filename, files } = (JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
  const paths = files.map((f) => f.path);
  expect(paths).toEqual(
    expect.arrayContaining([
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/devices/index.js',
      'scenarios/tiny-smoke.yaml',
      PKG.bin['mla-diff']!,
    ]),
  );
  expect(paths.filter((p) => p.startsWith('bench/') || p.startsWith('test/') || p.startsWith('src/'))).toEqual([]);

  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'embeds-mla-diff', private: true }));
  const installed = await install(join(dir, filename.replace(/^.*\//, '')), project);
  expect(readdirSync(installed)).toEqual(expect.arrayContaining(['dist', 'scenarios', 'package.json']));
  writeFileSync(join(project, 'use.js'), SCRIPT);

  const r = await execa('node', ['use.js'], { cwd: project, reject: false });
  expect({ exit: r.exitCode, stderr: r.exitCode === 0 ? '' : r.stderr.slice(-3000) }).toEqual({ exit: 0, stderr: '' });
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
    exports: number;
    verdict: string;
    cases: number;
    device: string;
    junit: boolean;
    bin: string;
  };
  expect(out).toEqual({ exports: out.exports, verdict: 'agree', cases: 2, device: 'wasm', junit: true, bin: PKG.bin['mla-diff'] });
  expect(out.exports).toBeGreaterThan(50);
});
