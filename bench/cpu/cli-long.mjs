// A long scenario through the built CLI on wasm, as CI runs it: wall time and peak RSS of the whole
// process, the verdict and the worst engine error, and each stage's L2 norm against the same scenario's
// report from the H200 (webgpu) where one is committed. Stores its data under 'cli-long' in
// bench/cpu/results.json and re-renders bench/cpu/results.md (bench/cpu/results.mjs).
// Usage: npm run build && node bench/cpu/cli-long.mjs [--scenario scenarios/gpu/glm5-long-2048.yaml]
//   [--gpu-report FILE: a run report of the same scenario; default bench/gpu/results.json's glm5Long2048Report, the H200's]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/cpu/cli-long.mjs [--scenario scenarios/gpu/glm5-long-2048.yaml] [--gpu-report FILE]');
  process.exit(0);
}

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const scenario = arg('scenario', 'scenarios/gpu/glm5-long-2048.yaml');
const gpuPath = arg('gpu-report', 'bench/gpu/results.json');
const out = `${os.tmpdir()}/mla-diff-cli-long.json`;
const t = performance.now();
const r = spawnSync(
  '/usr/bin/time',
  ['-f', 'MAXRSS_KB=%M', 'node', CLI, 'run', scenario, '--device', 'wasm', '--format', 'json', '--out', out],
  { encoding: 'utf8' },
);
const wallS = (performance.now() - t) / 1000;
const rssGiB = Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 2 ** 20;
if (r.status !== 0 && r.status !== 1) throw new Error(`mla-diff exited ${r.status}: ${r.stderr.slice(-600)}`);
const report = JSON.parse(readFileSync(out, 'utf8'));
const gpuJson = existsSync(gpuPath) ? JSON.parse(readFileSync(gpuPath, 'utf8')) : null;
const gpu = gpuJson?.glm5Long2048Report ?? gpuJson;
const stagesOf = (rep, path) =>
  new Map(rep.cases[0].trace.paths[path].stages.map((s) => [`${s.step}/${s.stage}/${s.chunk ?? ''}`, s.stats]));
const rows = [];
for (const path of ['mha', 'mqa']) {
  const cpu = stagesOf(report, path);
  const g = gpu ? stagesOf(gpu, path) : new Map();
  for (const [key, s] of cpu) {
    const o = g.get(key);
    rows.push({
      path,
      stage: key.split('/')[1],
      l2: s.l2,
      gpuL2: o?.l2 ?? null,
      rel: o ? Math.abs(s.l2 - o.l2) / Math.max(Math.abs(o.l2), 1e-30) : null,
    });
  }
}
const worstCross = rows.filter((x) => x.rel !== null).reduce((a, b) => (b.rel > (a?.rel ?? -1) ? b : a), null);
const c = report.cases[0];
const result = {
  command: `node bench/cpu/cli-long.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  date: new Date().toISOString(),
  scenario,
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
  device: report.device?.description,
  exit: r.status,
  wallS,
  rssGiB,
  verdict: report.verdict,
  seconds: report.seconds,
  pathSeconds: c.trace.seconds,
  worstEngine: c.comparison.worstEngine,
  gpuReport: gpu ? (gpuJson.glm5Long2048Report ? `\`glm5Long2048Report\` of ${gpuPath}` : `\`${gpuPath}\``) : null,
  worstCross,
  rows,
};
const md = record('cli-long', result);
const section = md.slice(md.indexOf('<a id="cli-long">'));
console.log(section.split('\n').slice(0, 12).join('\n'));
