// Issue 8's CPU target: the GLM-5 layer (64 heads, one causal prefill of T tokens), both paths, on
// wasm with its products through the host BLAS (MLA_DIFF_BLAS=auto) and through tfjs-wasm's own
// XNNPACK (MLA_DIFF_BLAS=off), against the numpy anchor on the same machine. Rounds alternate
// numpy / BLAS / XNNPACK so that all see the same load; one process per measurement (peak RSS its own).
// mla-diff: `node bench/cpu/forward.mjs --path P --tokens T --reps 1 --probes on` (the probes-off run after
// a warm-up, then one with every stage recorded). numpy: `mla_numpy.py T` (the second of two runs per path).
// Writes bench/cpu/issue8-T.{json,md}.
// Usage: npm run build && node bench/cpu/issue8.mjs [--tokens 512] [--rounds 3] [--xnnpack 1 (0: skip it)] [--probes on|off] [--anchor ../shared/anchors/mla_numpy.py]
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const arg = (n, d) => { const i = process.argv.indexOf(`--${n}`); return i > 0 ? process.argv[i + 1] : d; };
const T = Number(arg('tokens', '512'));
const rounds = Number(arg('rounds', '3'));
const xnnpack = arg('xnnpack', '1') !== '0';
const anchor = arg('anchor', '../shared/anchors/mla_numpy.py');
const probes = arg('probes', 'on'); // off: no recorded run (forward.mjs records logits unfused: [64,T,T] twice over the 4 GiB heap at T = 2048)

function run(cmd, args, env = {}) {
  const r = spawnSync('/usr/bin/time', ['-f', 'MAXRSS_KB=%M', cmd, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-400)}`);
  return { stdout: r.stdout, rssMiB: Number(/MAXRSS_KB=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024 };
}

function ours(blas) {
  const out = {};
  for (const p of ['mha', 'mqa']) {
    const r = run('node', ['bench/cpu/forward.mjs', '--path', p, '--tokens', String(T), '--reps', '1', '--probes', probes], { MLA_DIFF_BLAS: blas });
    const j = JSON.parse(r.stdout.trim().split('\n').at(-1));
    out[p] = { offMs: j.probesOffMs, onMs: j.probesOnMs, rssMiB: r.rssMiB, outNorm: j.outNorm, device: j.device.description };
  }
  return out;
}

const rows = [];
for (let i = 0; i < rounds; i++) {
  const np = run('python3', [anchor, String(T)]);
  const m = /mha_ms=([\d.]+) mqa_ms=([\d.]+)/.exec(np.stdout);
  const row = { numpy: { mha: { offMs: Number(m[1]) }, mqa: { offMs: Number(m[2]) }, rssMiB: np.rssMiB, out: np.stdout.trim() }, blas: ours('auto') };
  if (xnnpack) row.xnnpack = ours('off');
  rows.push(row);
  const both = (x) => (x ? ((x.mha.offMs + x.mqa.offMs) / 1000).toFixed(2) : '—');
  console.log(`round ${i + 1}: numpy ${both(row.numpy)} s, BLAS ${both(row.blas)} s, XNNPACK ${both(row.xnnpack)} s (both paths, probes off)`);
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kinds = ['numpy', 'blas', ...(xnnpack ? ['xnnpack'] : [])];
const median = Object.fromEntries(kinds.map((k) => [k, Object.fromEntries(['mha', 'mqa', 'both'].map((p) => [p,
  med(rows.map((r) => (p === 'both' ? r[k].mha.offMs + r[k].mqa.offMs : r[k][p].offMs)))]))]));
const medOn = probes === 'off' ? null : Object.fromEntries(['blas', ...(xnnpack ? ['xnnpack'] : [])].map((k) => [k, Object.fromEntries(['mha', 'mqa'].map((p) => [p, med(rows.map((r) => r[k][p].onMs))]))]));
const cpu = os.cpus()[0]?.model ?? 'unknown';
const result = {
  command: `node bench/cpu/issue8.mjs ${process.argv.slice(2).join(' ')}`.trim(), date: new Date().toISOString(), tokens: T,
  machine: { cpus: os.cpus().length, cpu, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadavgAfter: os.loadavg() },
  devices: { blas: rows[0].blas.mha.device, xnnpack: rows[0].xnnpack?.mha.device }, median, medianProbesOn: medOn, rows,
};
writeFileSync(`bench/cpu/issue8-${T}.json`, JSON.stringify(result) + '\n');

const s = (x) => (x / 1000).toFixed(2);
const ratio = (k, p) => `${(median[k][p] / median.numpy[p]).toFixed(2)}×`;
const md = [
  `# CPU: issue 8's target at T = ${T} (both paths ≤ 2× numpy)`,
  '',
  `Command: \`${result.command}\` (${result.date.slice(0, 10)}), machine: ${result.machine.cpus} × ${cpu}, ${result.machine.memGiB} GiB, Node ${process.version}; load average after the run ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}.`,
  '',
  `One GLM-5 layer, all 64 heads, one causal prefill of ${T} tokens, each path on its own, probes off (the run after a warm-up); ${rounds} alternating rounds, medians. numpy: \`mla_numpy.py ${T}\` (float32, its BLAS on all cores). mla-diff on wasm:`,
  `- **host BLAS**: ${result.devices.blas}.`,
  ...(xnnpack ? [`- **XNNPACK** (MLA_DIFF_BLAS=off): ${result.devices.xnnpack}.`] : []),
  '',
  `| | numpy (s) | wasm + host BLAS (s) | ratio |${xnnpack ? ' wasm, XNNPACK (s) | ratio |' : ''}`,
  `|---|---|---|---|${xnnpack ? '---|---|' : ''}`,
  ...['mha', 'mqa', 'both'].map((p) => `| ${p === 'both' ? '**both paths**' : p} | ${s(median.numpy[p])} | ${s(median.blas[p])} | **${ratio('blas', p)}** |${xnnpack ? ` ${s(median.xnnpack[p])} | ${ratio('xnnpack', p)} |` : ''}`),
  '',
  medOn ? `With every stage recorded (probes on, the same processes): host BLAS mha ${s(medOn.blas.mha)} s, mqa ${s(medOn.blas.mqa)} s${xnnpack ? `; XNNPACK mha ${s(medOn.xnnpack.mha)} s, mqa ${s(medOn.xnnpack.mqa)} s` : ''}.` : 'Probes off only (--probes off).',
  '',
  `Peak RSS (last round, MiB): numpy ${rows.at(-1).numpy.rssMiB.toFixed(0)} (both paths, one process); host BLAS mha ${rows.at(-1).blas.mha.rssMiB.toFixed(0)}, mqa ${rows.at(-1).blas.mqa.rssMiB.toFixed(0)}. |out| mha/mqa (ours, synthetic weights): ${rows.at(-1).blas.mha.outNorm.toFixed(3)} / ${rows.at(-1).blas.mqa.outNorm.toFixed(3)}; numpy: ${rows.at(-1).numpy.out}.`,
  '',
  '| round | numpy mha / mqa (s) | host BLAS mha / mqa (s) |' + (xnnpack ? ' XNNPACK mha / mqa (s) |' : ''),
  '|---|---|---|' + (xnnpack ? '---|' : ''),
  ...rows.map((r, i) => `| ${i + 1} | ${s(r.numpy.mha.offMs)} / ${s(r.numpy.mqa.offMs)} | ${s(r.blas.mha.offMs)} / ${s(r.blas.mqa.offMs)} |${xnnpack ? ` ${s(r.xnnpack.mha.offMs)} / ${s(r.xnnpack.mqa.offMs)} |` : ''}`),
  '',
].join('\n');
writeFileSync(`bench/cpu/issue8-${T}.md`, md);
console.log(md);
