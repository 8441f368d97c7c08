// CPU at prompt lengths: the forward of each path of the GLM-5 layer (64 heads, one causal prefill
// of T tokens) on wasm, probes off, against the numpy anchor `mla_numpy.py T` (same layer, float32)
// on the same machine, one process per measurement (its peak RSS its own). With --before DIR, the
// same forward from an earlier build: DIR the root of a built checkout of mla-diff (e.g. a `git worktree` of
// the parent commit after `npm run build` there; it needs the public API bench/cpu/forward.mjs uses).
// Writes bench/cpu/long.{json,md}.
// Usage: npm run build && node bench/cpu/long.mjs [--tokens 512,2048] [--before DIR [--before-tokens 2048]] [--anchor ../shared/anchors/mla_numpy.py] [--timeout 300] [--merge: keep long.json's rows of other lengths] [--render: long.md from long.json] [--reuse: numpy/before of a length from long.json, only the current build measured] [--note TEXT]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const arg = (n, d) => { const i = process.argv.indexOf(`--${n}`); return i > 0 ? process.argv[i + 1] : d; };
const tokens = arg('tokens', '512,2048').split(',').map(Number);
const before = arg('before', null);
const beforeTokens = arg('before-tokens', null)?.split(',').map(Number) ?? tokens; // the lengths to run the earlier build at
const anchor = arg('anchor', '../shared/anchors/mla_numpy.py');
const timeoutS = Number(arg('timeout', '300'));
const hasTime = existsSync('/usr/bin/time');

/** Runs a command under /usr/bin/time: wall seconds, peak RSS (MiB), stdout; null fields when killed. */
function measured(cmd, args) {
  const full = hasTime ? ['/usr/bin/time', ['-f', 'MAXRSS_KB=%M', cmd, ...args]] : [cmd, args];
  const t = performance.now();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 1 << 26 });
  const wall = (performance.now() - t) / 1000;
  const rss = /MAXRSS_KB=(\d+)/.exec(r.stderr ?? '');
  const failed = r.status !== 0 ? (r.signal ? `killed (${r.signal}) after ${wall.toFixed(0)} s` : `exit ${r.status}: ${(r.stderr ?? '').split('\n').filter((l) => l && !l.startsWith('MAXRSS')).slice(-2).join(' ').slice(0, 200)}`) : null;
  return { wall, rssMiB: rss ? Number(rss[1]) / 1024 : null, stdout: r.stdout ?? '', failed };
}

const ms = (x) => (x == null ? '—' : (x / 1000).toFixed(2));
const render = process.argv.includes('--render'); // only rewrite long.md from long.json
const rows = render ? JSON.parse(readFileSync('bench/cpu/long.json', 'utf8')).rows : [];
const earlier = existsSync('bench/cpu/long.json') ? JSON.parse(readFileSync('bench/cpu/long.json', 'utf8')).rows : [];
for (const T of render ? [] : tokens) {
  const old = earlier.find((r) => r.tokens === T);
  if (process.argv.includes('--reuse') && old) { // keep the earlier run's numpy and before figures of this length, measure only the current build
    const row = { ...old, tokens: T, numpy: { ...old.numpy, earlierRun: true } };
    for (const p of ['mha', 'mqa']) {
      const r = measured('node', ['bench/cpu/forward.mjs', '--path', p, '--tokens', String(T), '--reps', T <= 512 ? '1' : '0', '--probes', 'off']);
      const j = r.failed ? null : JSON.parse(r.stdout.trim().split('\n').at(-1));
      row[`after_${p}`] = { ms: j?.probesOffMs ?? null, allMs: j?.probesOffAllMs, rssMiB: r.rssMiB, outNorm: j?.outNorm, failed: r.failed };
      console.log(`T=${T} after ${p}: ${j ? `${ms(j.probesOffMs)} s` : r.failed} (peak RSS ${r.rssMiB?.toFixed(0)} MiB)`);
    }
    rows.push(row);
    continue;
  }
  const np = measured('python3', [anchor, String(T)]);
  const m = /mha_ms=([\d.]+) mqa_ms=([\d.]+)/.exec(np.stdout);
  const row = { tokens: T, numpy: { mhaMs: m ? Number(m[1]) : null, mqaMs: m ? Number(m[2]) : null, rssMiB: np.rssMiB, failed: np.failed, out: np.stdout.trim() } };
  console.log(`T=${T} numpy: ${np.stdout.trim() || np.failed} (peak RSS ${np.rssMiB?.toFixed(0)} MiB)`);
  for (const [label, pkg] of [['after', null], ...(before && beforeTokens.includes(T) ? [['before', before]] : [])]) {
    for (const p of ['mha', 'mqa']) {
      const r = measured('node', ['bench/cpu/forward.mjs', '--path', p, '--tokens', String(T), '--reps', T <= 512 ? '1' : '0', '--probes', 'off', ...(pkg ? ['--package', pkg] : [])]);
      const j = r.failed ? null : JSON.parse(r.stdout.trim().split('\n').at(-1));
      row[`${label}_${p}`] = { ms: j?.probesOffMs ?? null, allMs: j?.probesOffAllMs, rssMiB: r.rssMiB, outNorm: j?.outNorm, failed: r.failed };
      console.log(`T=${T} ${label} ${p}: ${j ? `${ms(j.probesOffMs)} s` : r.failed} (peak RSS ${r.rssMiB?.toFixed(0)} MiB)`);
    }
  }
  rows.push(row);
}
if (!render && process.argv.includes('--merge') && existsSync('bench/cpu/long.json')) { // keep the earlier rows of lengths not measured now
  const kept = JSON.parse(readFileSync('bench/cpu/long.json', 'utf8')).rows.filter((r) => !tokens.includes(r.tokens));
  rows.unshift(...kept.map((r) => ({ ...r, earlierRun: true })));
  rows.sort((a, b) => a.tokens - b.tokens);
}
const cpu = os.cpus()[0]?.model ?? 'unknown';
const result = render ? JSON.parse(readFileSync('bench/cpu/long.json', 'utf8')) : { command: `node bench/cpu/long.mjs ${process.argv.slice(2).join(' ')}`, date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, version: JSON.parse(readFileSync('package.json', 'utf8')).version }, rows };
if (arg('note', null)) result.note = arg('note'); // conditions of the run (other load on the machine), stated by whoever ran it
if (!render) result.loadavg = os.loadavg();
writeFileSync('bench/cpu/long.json', JSON.stringify(result, null, 2) + '\n');
/** Where the time goes at T=512, from bench/cpu/profile-512.json (forward.mjs --profile: tf.profile of one probes-off step). */
function profileLines() {
  if (!existsSync('bench/cpu/profile-512.json')) return [];
  const prof = JSON.parse(readFileSync('bench/cpu/profile-512.json', 'utf8'));
  const lines = ['Where the time goes at T = 512 (`bench/cpu/profile-512.json`, see its note: the slowest kernels of one probes-off step under tf.profile, and the probes-off wall times of the same process):', ''];
  for (const [label, runs] of [['before', prof.before], ['after', prof.after]]) {
    for (const r of runs) {
      const total = r.profile.reduce((a, k) => a + k.ms, 0);
      const top = r.profile.slice(0, 4).map((k) => `${k.kernel.replace(/ .*/, '')} ${k.kernel.slice(k.kernel.indexOf(' ') + 1)} ${(k.ms / 1000).toFixed(1)} s${k.n > 1 ? ` (${k.n} calls)` : ''}`);
      lines.push(`- ${label} ${r.path} (runs ${r.probesOffAllMs.map((x) => (x / 1000).toFixed(1)).join(' / ')} s): ${top.join('; ')} — of ${(total / 1000).toFixed(1)} s in the ${r.profile.length} slowest kernels.`);
    }
  }
  return [...lines, ''];
}

const cell = (c) => (c ? (c.failed ? c.failed.replace(/^exit (\d+):.*/, 'failed (exit $1)') : `${ms(c.ms)}`) : '—');
const ratio = (c, n) => (c?.ms != null && n ? `${(c.ms / n).toFixed(2)}×` : '—');
const md = [
  '# CPU: GLM-5 layer forward at T = 512 and 2048 on wasm vs the numpy anchor',
  '',
  `Command: \`${result.command}\` (${result.date.slice(0, 10)}), machine: ${result.machine.cpus} × ${cpu}, ${result.machine.memGiB} GiB, Node ${process.version}.`,
  '',
  ...(result.note ? [`Conditions: ${result.note}`, ''] : []),
  'mla-diff: `node bench/cpu/forward.mjs --path P --tokens T --probes off` — one layer, all 64 heads, one causal prefill, `MlaBackend.step` with nothing recorded (as run-case drives it), weights uploaded first; T ≤ 512: the run after a warm-up, else the first run. numpy: `python3 mla_numpy.py T` — the same layer in float32, the second of two runs. Each measurement is its own process; peak RSS from /usr/bin/time (the numpy figure includes its 660 MB of weights, as ours does). "before" is the build this work started from (unfused [N,T,S] attention, tf.unstack copying its input per entry, every intermediate of a step alive until its end); "failed (exit 7)" there is the wasm heap (4 GiB) running out (Aborted(), then memory access out of bounds).',
  '',
  '| T | path | numpy (s) | mla-diff after (s) | after / numpy | mla-diff before (s) | peak RSS numpy / after / before (MiB) |',
  '|---|---|---|---|---|---|---|',
  ...rows.flatMap((r) => ['mha', 'mqa'].map((p) => {
    const n = r.numpy[`${p}Ms`];
    const np = `${ms(n)}${r.numpy.earlierRun ? ' (earlier run)' : ''}`;
    const a = r[`after_${p}`];
    const b = r[`before_${p}`];
    return `| ${r.tokens}${r.earlierRun ? ' (earlier run)' : ''} | ${p} | ${np} | ${cell(a)} | ${ratio(a, n)} | ${cell(b)} | ${r.numpy.rssMiB?.toFixed(0) ?? '—'} / ${a?.rssMiB?.toFixed(0) ?? '—'} / ${b?.rssMiB?.toFixed(0) ?? '—'} |`;
  })),
  '',
  ...profileLines(),
].join('\n');
writeFileSync('bench/cpu/long.md', md);
console.log(md);
