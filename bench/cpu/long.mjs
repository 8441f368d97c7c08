// CPU at prompt lengths: the forward of each path of the GLM-5 layer (64 heads, one causal prefill
// of T tokens) on wasm, probes off, against the numpy anchor `mla_numpy.py T` (same layer, float32)
// on the same machine, one process per measurement (its peak RSS its own). With --before DIR, the
// same forward from an earlier build: DIR the root of a built checkout of mla-diff (e.g. a `git worktree` of
// the parent commit after `npm run build` there; it needs the public API bench/cpu/forward.mjs uses).
// Stores its data under 'long' in bench/cpu/results.json and re-renders bench/cpu/results.md (bench/cpu/results.mjs;
// the section also shows results.json's 'profile-512').
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { load, record } from './results.mjs';

const USAGE =
  'Usage: npm run build && node bench/cpu/long.mjs [--tokens 512,2048] [--before DIR [--before-tokens 2048]] [--anchor ' +
  "../shared/anchors/mla_numpy.py] [--timeout 300] [--merge: keep results.json's long rows of other lengths] [--render: only " +
  "re-render results.md] [--reuse: numpy/before of a length from results.json's long, only the current build measured] [--note " +
  'TEXT]';

if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
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
  const failed =
    r.status !== 0
      ? r.signal
        ? `killed (${r.signal}) after ${wall.toFixed(0)} s`
        : `exit ${r.status}: ${(r.stderr ?? '')
            .split('\n')
            .filter((l) => l && !l.startsWith('MAXRSS'))
            .slice(-2)
            .join(' ')
            .slice(0, 200)}`
      : null;
  return { wall, rssMiB: rss ? Number(rss[1]) / 1024 : null, stdout: r.stdout ?? '', failed };
}

const ms = (x) => (x == null ? '—' : (x / 1000).toFixed(2));
const render = process.argv.includes('--render'); // only re-render results.md from results.json
const stored = load().long; // the earlier run, if any
if (render && !stored) throw new Error("bench/cpu/results.json has no 'long' to render");
const rows = render ? stored.rows : [];
const earlier = stored?.rows ?? [];
for (const T of render ? [] : tokens) {
  const old = earlier.find((r) => r.tokens === T);
  if (process.argv.includes('--reuse') && old) {
    // keep the earlier run's numpy and before figures of this length, measure only the current build
    const row = { ...old, tokens: T, numpy: { ...old.numpy, earlierRun: true } };
    for (const p of ['mha', 'mqa']) {
      const r = measured('node', [
        'bench/cpu/forward.mjs',
        '--path',
        p,
        '--tokens',
        String(T),
        '--reps',
        T <= 512 ? '1' : '0',
        '--probes',
        'off',
      ]);
      const j = r.failed ? null : JSON.parse(r.stdout.trim().split('\n').at(-1));
      row[`after_${p}`] = { ms: j?.probesOffMs ?? null, allMs: j?.probesOffAllMs, rssMiB: r.rssMiB, outNorm: j?.outNorm, failed: r.failed };
      console.log(`T=${T} after ${p}: ${j ? `${ms(j.probesOffMs)} s` : r.failed} (peak RSS ${r.rssMiB?.toFixed(0)} MiB)`);
    }
    rows.push(row);
    continue;
  }
  const np = measured('python3', [anchor, String(T)]);
  const m = /mha_ms=([\d.]+) mqa_ms=([\d.]+)/.exec(np.stdout);
  const row = {
    tokens: T,
    numpy: { mhaMs: m ? Number(m[1]) : null, mqaMs: m ? Number(m[2]) : null, rssMiB: np.rssMiB, failed: np.failed, out: np.stdout.trim() },
  };
  console.log(`T=${T} numpy: ${np.stdout.trim() || np.failed} (peak RSS ${np.rssMiB?.toFixed(0)} MiB)`);
  for (const [label, pkg] of [['after', null], ...(before && beforeTokens.includes(T) ? [['before', before]] : [])]) {
    for (const p of ['mha', 'mqa']) {
      const r = measured('node', [
        'bench/cpu/forward.mjs',
        '--path',
        p,
        '--tokens',
        String(T),
        '--reps',
        T <= 512 ? '1' : '0',
        '--probes',
        'off',
        ...(pkg ? ['--package', pkg] : []),
      ]);
      const j = r.failed ? null : JSON.parse(r.stdout.trim().split('\n').at(-1));
      row[`${label}_${p}`] = {
        ms: j?.probesOffMs ?? null,
        allMs: j?.probesOffAllMs,
        rssMiB: r.rssMiB,
        outNorm: j?.outNorm,
        failed: r.failed,
      };
      console.log(`T=${T} ${label} ${p}: ${j ? `${ms(j.probesOffMs)} s` : r.failed} (peak RSS ${r.rssMiB?.toFixed(0)} MiB)`);
    }
  }
  rows.push(row);
}
if (!render && process.argv.includes('--merge') && stored) {
  // keep the earlier rows of lengths not measured now
  const kept = stored.rows.filter((r) => !tokens.includes(r.tokens));
  rows.unshift(...kept.map((r) => ({ ...r, earlierRun: true })));
  rows.sort((a, b) => a.tokens - b.tokens);
}
const cpu = os.cpus()[0]?.model ?? 'unknown';
const result = render
  ? stored
  : {
      command: `node bench/cpu/long.mjs ${process.argv.slice(2).join(' ')}`,
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu,
        memGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        version: JSON.parse(readFileSync('package.json', 'utf8')).version,
      },
      rows,
    };
if (arg('note', null)) result.note = arg('note'); // conditions of the run (other load on the machine), stated by whoever ran it
if (!render) result.loadavg = os.loadavg();
const md = record('long', result);
console.log(md.slice(md.indexOf('<a id="long">'), md.indexOf('<a id="cli-long">')));
