// CPU benchmark: `mla-diff run scenarios/capital-of-france.yaml` end to end (GLM-5 layer, 64 heads
// and TP rank 0 of 8, float64 reference on) against the numpy anchor `mla_numpy.py 5` (same layer,
// weights included), alternating on the same machine. Stores its data under 'capital-of-france' in
// bench/cpu/results.json and re-renders bench/cpu/results.md (bench/cpu/results.mjs).
// Usage: npm run build && node bench/cpu/run.mjs [--rounds 5] [--anchor ../shared/anchors/mla_numpy.py]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/cpu/run.mjs [--rounds 5] [--anchor ../shared/anchors/mla_numpy.py]');
  process.exit(0);
}

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const rounds = Number(arg('rounds', '5'));
const anchor = arg('anchor', '../shared/anchors/mla_numpy.py');
const ours = ['node', [CLI, 'run', 'scenarios/capital-of-france.yaml', '--device', 'wasm', '--format', 'json']];
const theirs = ['python3', [anchor, '5']];

function timed([cmd, args]) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const s = (performance.now() - t) / 1000;
  if (r.status !== 0 && !(cmd === 'node' && r.status === 1)) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { s, stdout: r.stdout, status: r.status };
}

const rows = [];
for (let i = 0; i < rounds; i++) {
  const a = timed(theirs);
  const b = timed(ours);
  const report = JSON.parse(b.stdout);
  rows.push({
    numpy_s: a.s,
    mla_diff_s: b.s,
    mla_diff_exit: b.status,
    numpy_out: a.stdout.trim(),
    verdict: report.verdict,
    inner: report.seconds,
    worst: report.cases.map((c) => ({ case: c.trace.name, ...c.comparison.worstEngine })),
  });
  console.log(`round ${i + 1}: numpy ${a.s.toFixed(2)} s, mla-diff ${b.s.toFixed(2)} s (${report.verdict})`);
}
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const mNumpy = med(rows.map((r) => r.numpy_s));
const mOurs = med(rows.map((r) => r.mla_diff_s));
const cpu = os.cpus()[0]?.model ?? 'unknown';
let numpyVersion = 'unknown';
try {
  numpyVersion = spawnSync('python3', ['-c', 'import numpy; print(numpy.__version__)'], { encoding: 'utf8' }).stdout.trim();
} catch {
  // python3 absent (spawnSync's stdout is null) or numpy not importable: the version stays 'unknown'.
}
const result = {
  command: `node bench/cpu/run.mjs --rounds ${rounds} --anchor ${anchor}`,
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    numpy: numpyVersion,
    version: JSON.parse(readFileSync('package.json', 'utf8')).version,
  },
  median: { numpy_s: mNumpy, mla_diff_s: mOurs, ratio: mOurs / mNumpy },
  rows,
};
record('capital-of-france', result);
console.log(
  `bench/cpu/results.md, capital-of-france: median numpy ${mNumpy.toFixed(2)} s, mla-diff ${mOurs.toFixed(2)} s, ratio ` +
    `${(mOurs / mNumpy).toFixed(2)}×`,
);
