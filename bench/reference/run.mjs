// The float64 reference at real sizes (issue 21): GLM-5, all 64 heads, one causal prefill of T synthetic
// tokens. Per T: the reference alone in its own process (bench/reference/one.mjs: wall time, GMAC/s
// against planReference's estimate, peak RSS), with logits and attn_probs recorded (as on unfused wasm)
// and, with --no-scores, without (as under fused attention); then, unless --reference-only, the CLI on
// wasm: `mla-diff run` of the same scenario with --reference off (the fp32 paths' wall time) and on (the
// whole run, the reference on its worker thread beside the paths, peak RSS). --pool-max-t times the
// worker pool (MLA_DIFF_BLAS=off: no BLAS for the reference or the wasm device) up to that T.
// Writes bench/reference/results.json and results.md (--render: only re-render results.md).
// Usage: npm run build && node bench/reference/run.mjs [--t 128,512,1024,2048] [--max-t 2048]
//   [--no-scores-t 2048,8192] [--pool-max-t 512] [--reference-only] [--timeout 900]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { render } from './render.mjs';

const USAGE =
  'Usage: npm run build && node bench/reference/run.mjs [--t 128,512,1024,2048] [--max-t 2048] [--no-scores-t 2048,8192] ' +
  '[--pool-max-t 512] [--reference-only] [--timeout 900] [--render]';
if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
const [JSON_PATH, MD_PATH] = ['bench/reference/results.json', 'bench/reference/results.md'];
if (process.argv.includes('--render')) {
  writeFileSync(MD_PATH, render(JSON.parse(readFileSync(JSON_PATH, 'utf8'))));
  process.exit(0);
}

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const list = (s) => (s ? s.split(',').map(Number) : []);
const maxT = Number(arg('max-t', 'Infinity'));
const ts = list(arg('t', '128,512,1024,2048')).filter((t) => t <= maxT);
const noScoresT = list(arg('no-scores-t', '2048,8192')).filter((t) => t <= maxT);
const poolMaxT = Number(arg('pool-max-t', '512'));
const referenceOnly = process.argv.includes('--reference-only');
const timeoutS = Number(arg('timeout', '900'));
const hasTime = existsSync('/usr/bin/time');

/** Runs a command (under /usr/bin/time where there is one): wall seconds, peak RSS in GiB, stdout; `failed` when it did not exit 0/1. */
function measured(cmd, args, env = {}) {
  const full = hasTime ? ['/usr/bin/time', ['-f', 'MAXRSS_KB=%M', cmd, ...args]] : [cmd, args];
  const t = performance.now();
  const r = spawnSync(full[0], full[1], {
    encoding: 'utf8',
    timeout: timeoutS * 1000,
    maxBuffer: 1 << 26,
    env: { ...process.env, ...env },
  });
  const wall = (performance.now() - t) / 1000;
  const rss = /MAXRSS_KB=(\d+)/.exec(r.stderr ?? '');
  const tail = (r.stderr ?? '')
    .split('\n')
    .filter((l) => l && !l.startsWith('MAXRSS'))
    .slice(-2)
    .join(' ')
    .slice(0, 300);
  const failed =
    r.status === 0 || r.status === 1 ? null : r.signal ? `killed (${r.signal}) after ${wall.toFixed(0)} s` : `exit ${r.status}: ${tail}`;
  return { wall, rssGiB: rss ? Number(rss[1]) / 2 ** 20 : null, stdout: r.stdout ?? '', failed };
}

/** The reference alone (one.mjs), one process. */
function alone(T, gemm, scores, env = {}) {
  const args = ['bench/reference/one.mjs', '--t', String(T), '--gemm', gemm, ...(scores ? [] : ['--no-scores'])];
  const m = measured('node', args, env);
  const line = m.stdout.trim().split('\n').pop();
  const r = m.failed ? { failed: m.failed } : JSON.parse(line);
  console.error(`T ${T} ${gemm}${scores ? '' : ' no scores'}: ${m.failed ?? `${r.seconds.toFixed(1)} s, ${r.gmacPerS.toFixed(1)} GMAC/s`}`);
  return { T, gemm, scores, ...r, processRssGiB: m.rssGiB };
}

/** The CLI on wasm, the reference off or on. */
function cli(T, reference, env = {}) {
  const yaml = `${os.tmpdir()}/mla-diff-reference-bench-${T}.yaml`;
  const out = `${os.tmpdir()}/mla-diff-reference-bench-${T}-${reference}.json`;
  const s = ['version: 1', `name: glm5-prefill-${T}`, 'model: {preset: glm-5}', 'weights: {synthetic: {seed: 0}}'];
  writeFileSync(yaml, [...s, `prompt: {length: ${T}}`, 'reference: auto', 'cases: [{name: all-heads}]', ''].join('\n'));
  const args = [CLI, 'run', yaml, '--device', 'wasm', '--reference', reference, '--format', 'json', '--out', out, '--force'];
  const m = measured('node', args, env);
  if (m.failed) return { T, reference, failed: m.failed, wall: m.wall, rssGiB: m.rssGiB };
  const rep = JSON.parse(readFileSync(out, 'utf8'));
  const paths = rep.cases[0].trace.seconds;
  console.error(`T ${T} CLI reference ${reference}: ${m.wall.toFixed(1)} s, ${m.rssGiB?.toFixed(1)} GiB, verdict ${rep.verdict}`);
  const device = rep.device.description;
  return { T, reference, wall: m.wall, rssGiB: m.rssGiB, seconds: rep.seconds, paths, verdict: rep.verdict, device };
}

/** What bounds the non-GEMM part here: Math.exp (ns per call, one thread) and fresh memory's first write (GB/s). */
function machineRates() {
  const n = 1 << 25;
  let [t, z] = [performance.now(), 0];
  for (let i = 0; i < n; i++) z += Math.exp(-i * 1e-9);
  const expNs = ((performance.now() - t) / n) * 1e6;
  t = performance.now();
  new Float64Array(1 << 26).fill(z); // 512 MiB, first touch
  return { expNs, firstTouchGBps: 2 ** 29 / 1e9 / ((performance.now() - t) / 1000) };
}

const rates = machineRates();
const rows = [];
for (const T of ts) rows.push(alone(T, 'auto', true));
for (const T of noScoresT) rows.push(alone(T, 'auto', false));
for (const T of ts.filter((t) => t <= poolMaxT)) rows.push(alone(T, 'pool', true, { MLA_DIFF_BLAS: 'off' }));
const runs = [];
if (!referenceOnly)
  for (const T of ts) {
    runs.push(cli(T, 'off'));
    runs.push(cli(T, 'on'));
  }
const cpu =
  /model name\s*:\s*(.*)/.exec(existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '')?.[1] ?? os.cpus()[0]?.model;
const doc = {
  command: `node bench/reference/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  date: new Date().toISOString(),
  machine: {
    cpu,
    cores: os.availableParallelism(),
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    load: os.loadavg(),
    ...rates,
  },
  rows,
  runs,
};
writeFileSync(JSON_PATH, `${JSON.stringify(doc, null, 1)}\n`);
writeFileSync(MD_PATH, render(doc));
console.log(readFileSync(MD_PATH, 'utf8'));
