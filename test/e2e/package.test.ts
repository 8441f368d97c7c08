import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/**
 * The package as a user gets it: `npm pack` of the built tree, then a real `npm install <tarball>`
 * into an empty folder (npm's cache is warm from this repository's `npm ci`: --prefer-offline). The
 * installed `mla-diff` bin runs the shipped scenarios that read checkpoint fixtures (written on first
 * use into XDG_CACHE_HOME), one agree and one fault scenario, each meeting its declared outcome; the
 * library entry loads by name (require and import). .ci/run checks every other shipped scenario from
 * such an install.
 */
const ROOT = resolve(__dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
};

jest.setTimeout(300_000);

let dir: string;
let project: string;
let installLog: string;
let files: string[];
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) await execa('npm', ['run', 'build'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-package-'));
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  const packed = (JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
  files = packed.files.map((f) => f.path);
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-mla-diff', private: true }));
  const tarball = join(dir, packed.filename.replace(/^.*\//, ''));
  const r = await execa('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project, all: true });
  installLog = r.all ?? '';
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const installed = () => join(project, 'node_modules', PKG.name);

it('ships the build, scenarios, docs and LICENSE; no sources, tests or benchmarks; no install script of its own', () => {
  expect(files).toEqual(
    expect.arrayContaining(['package.json', 'LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'scenarios/tiny-smoke.yaml']),
  );
  expect(files).toContain(PKG.bin['mla-diff']);
  expect(files.filter((p) => /^(bench|test|src|fixtures)\//.test(p))).toEqual([]);
  expect(readFileSync(join(installed(), 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
  // every docs/ link of the README resolves inside the installed package
  const readme = readFileSync(join(installed(), 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!);
  expect(links.length).toBeGreaterThan(3);
  expect(links.filter((l) => !existsSync(join(installed(), l)))).toEqual([]);
  for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(PKG.scripts[s]).toBeUndefined();
  expect(installLog).not.toMatch(/mla-diff@[\d.]+ \(/); // npm's install-scripts warning does not name mla-diff
});

it('installs no GPU stack and no vega-lite for a CPU user', () => {
  const modules = join(project, 'node_modules');
  const present = [...Object.keys(PKG.peerDependencies), 'vega-lite'].filter((n) => existsSync(join(modules, n)));
  expect(present).toEqual([]);
  expect(readdirSync(modules)).toEqual(expect.arrayContaining(['mla-diff', 'vega', 'koffi', '@tensorflow']));
});

const SCRIPT = `
const assert = require('node:assert');
const api = require('mla-diff');
const names = ['loadScenario', 'parseScenario', 'selectRuntime', 'runScenario', 'loadRunReport', 'rejudgeRun', 'compareRuns',
  'renderRun', 'renderJUnit', 'renderMarkdown', 'renderHtml', 'makeStyle', 'MlaDiffError', 'isMlaDiffError', 'EXIT', 'EXIT_FOR',
  'STAGES', 'STAGE_NAMES', 'PATH_NAMES', 'FAULTS', 'FAULT_NAMES', 'DEVICE_NAMES', 'RUN_FORMAT', 'RUN_VERSION', 'writeFixtures'];
assert.deepStrictEqual(names.filter((n) => api[n] === undefined), []);
assert.strictEqual(typeof require('mla-diff/devices').flashAttention, 'function');
assert.throws(() => require('mla-diff/dist/index.js'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
import('mla-diff').then((esm) => {
  assert.strictEqual(typeof esm.runScenario, 'function');
  console.log(JSON.stringify({ require: Object.keys(api).length, import: Object.keys(esm).length }));
});
`;

it('require("mla-diff") and import("mla-diff") give the public API by name, not {}', async () => {
  writeFileSync(join(project, 'use.js'), SCRIPT);
  const r = await execa('node', ['use.js'], { cwd: project, reject: false });
  expect({ exit: r.exitCode, stderr: r.stderr.slice(-2000) }).toEqual({ exit: 0, stderr: '' });
  const out = JSON.parse(r.stdout) as { require: number; import: number };
  expect(out.require).toBeGreaterThan(50);
  expect(out.import).toBeGreaterThan(50);
});

interface RunJson {
  runs: { scenario: { name: string }; cases: { trace: { name: string }; expectation?: { met: boolean; misses: string[] } }[] }[];
}

it('the installed bin runs the fixture scenarios, an agree and a fault scenario: each meets its declared outcome', async () => {
  const names = [
    'checkpoint-gguf',
    'checkpoint-safetensors',
    'checkpoint-gguf-vs-safetensors',
    'fault-gguf-k-b-wrong-axis',
    'tiny-smoke',
    'fault-mqa-scale-576',
  ];
  const cache = join(dir, 'cache');
  const r = await execa('npx', ['mla-diff', 'run', ...names.map((n) => join(installed(), 'scenarios', `${n}.yaml`)), '--format', 'json'], {
    cwd: project,
    reject: false,
    env: { NO_COLOR: '1', XDG_CACHE_HOME: cache },
  });
  expect({ stderr: r.exitCode === 0 || r.exitCode === 1 ? '' : r.stderr.slice(-2000) }).toEqual({ stderr: '' });
  const report = JSON.parse(r.stdout) as RunJson;
  const met = report.runs.flatMap((run) => run.cases.map((c) => [`${run.scenario.name}/${c.trace.name}`, c.expectation?.met ?? null]));
  expect(met.filter(([, m]) => m !== true)).toEqual([]);
  expect(report.runs.map((run) => run.scenario.name)).toEqual(names);
  expect(readdirSync(join(cache, 'mla-diff'))).toEqual([
    `fixtures-${(JSON.parse(readFileSync(join(installed(), 'package.json'), 'utf8')) as { version: string }).version}`,
  ]);
});

it('--device webgpu without the GPU stack: exit 2 and the exact npm install', async () => {
  const r = await execa('npx', ['mla-diff', 'run', join(installed(), 'scenarios', 'tiny-smoke.yaml'), '--device', 'webgpu'], {
    cwd: project,
    reject: false,
    env: { NO_COLOR: '1' },
  });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toMatch(/error \[device-unavailable\]/);
  expect(r.stderr).toContain(`hint: npm install webgpu@${PKG.peerDependencies['webgpu']} @tensorflow/tfjs-backend-webgpu@`);
});
