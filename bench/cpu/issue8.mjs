// Issue 8's CPU target: the GLM-5 layer (64 heads, one causal prefill of T tokens), both paths, on
// wasm with its products through the host BLAS (MLA_DIFF_BLAS=auto) and through tfjs-wasm's own
// XNNPACK (MLA_DIFF_BLAS=off), against the numpy anchor on the same machine. Rounds alternate
// numpy / BLAS / XNNPACK so that all see the same load; one process per measurement (peak RSS its own).
// mla-diff: `node bench/cpu/forward.mjs --path P --tokens T --reps 1 --probes on` (the probes-off run after
// a warm-up, then one with every stage recorded). numpy: `mla_numpy.py T` (the second of two runs per path).
// Stores its data under 'issue8-T' in bench/cpu/results.json and re-renders bench/cpu/results.md (bench/cpu/results.mjs).
// Usage: npm run build && node bench/cpu/issue8.mjs [--tokens 512] [--rounds 3] [--xnnpack 1 (0: skip it)] [--probes on|off]
// [--anchor ../shared/anchors/mla_numpy.py]
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log(
    'Usage: npm run build && node bench/cpu/issue8.mjs [--tokens 512] [--rounds 3] [--xnnpack 1 (0: skip it)] [--probes ' +
      'on|off] [--anchor ../shared/anchors/mla_numpy.py]',
  );
  process.exit(0);
}

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const T = Number(arg('tokens', '512'));
const rounds = Number(arg('rounds', '3'));
const xnnpack = arg('xnnpack', '1') !== '0';
const anchor = arg('anchor', '../shared/anchors/mla_numpy.py');
// off: no recorded run (forward.mjs records logits unfused: [64,T,T] twice over the 4 GiB heap at T = 2048)
const probes = arg('probes', 'on');

function run(cmd, args, env = {}) {
  const r = spawnSync('/usr/bin/time', ['-f', 'MAXRSS_KB=%M', cmd, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-400)}`);
  return { stdout: r.stdout, rssMiB: Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024 };
}

function ours(blas) {
  const out = {};
  for (const p of ['mha', 'mqa']) {
    const r = run('node', ['bench/cpu/forward.mjs', '--path', p, '--tokens', String(T), '--reps', '1', '--probes', probes], {
      MLA_DIFF_BLAS: blas,
    });
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1));
    out[p] = { offMs: j.probesOffMs, onMs: j.probesOnMs, rssMiB: r.rssMiB, outNorm: j.outNorm, device: j.device.description };
  }
  return out;
}

const rows = [];
for (let i = 0; i < rounds; i++) {
  const np = run('python3', [anchor, String(T)]);
  const m = /mha_ms=([\d.]+) mqa_ms=([\d.]+)/.exec(np.stdout);
  const row = {
    numpy: { mha: { offMs: Number(m[1]) }, mqa: { offMs: Number(m[2]) }, rssMiB: np.rssMiB, out: np.stdout.trim() },
    blas: ours('auto'),
  };
  if (xnnpack) row.xnnpack = ours('off');
  rows.push(row);
  const both = (x) => (x ? ((x.mha.offMs + x.mqa.offMs) / 1000).toFixed(2) : '—');
  console.log(
    `round ${i + 1}: numpy ${both(row.numpy)} s, BLAS ${both(row.blas)} s, XNNPACK ${both(row.xnnpack)} s (both paths, probes off)`,
  );
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kinds = ['numpy', 'blas', ...(xnnpack ? ['xnnpack'] : [])];
const median = Object.fromEntries(
  kinds.map((k) => [
    k,
    Object.fromEntries(
      ['mha', 'mqa', 'both'].map((p) => [p, med(rows.map((r) => (p === 'both' ? r[k].mha.offMs + r[k].mqa.offMs : r[k][p].offMs)))]),
    ),
  ]),
);
const medOn =
  probes === 'off'
    ? null
    : Object.fromEntries(
        ['blas', ...(xnnpack ? ['xnnpack'] : [])].map((k) => [
          k,
          Object.fromEntries(['mha', 'mqa'].map((p) => [p, med(rows.map((r) => r[k][p].onMs))])),
        ]),
      );
const cpu = os.cpus()[0]?.model ?? 'unknown';
const result = {
  command: `node bench/cpu/issue8.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  date: new Date().toISOString(),
  tokens: T,
  machine: { cpus: os.cpus().length, cpu, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadavgAfter: os.loadavg() },
  devices: { blas: rows[0].blas.mha.device, xnnpack: rows[0].xnnpack?.mha.device },
  median,
  medianProbesOn: medOn,
  rows,
};
record(`issue8-${T}`, result);
const ratio = (k) => (median[k] ? `${(median[k].both / median.numpy.both).toFixed(2)}×` : '—');
console.log(`bench/cpu/results.md, issue8-${T}: both paths, host BLAS ${ratio('blas')} numpy, XNNPACK ${ratio('xnnpack')}`);
