// Issue 20 (performance, CPU part): one GLM-5 attention layer, all 64 heads, one causal prefill of T tokens,
// through llama.cpp (the engine, the third-party path) plus both of our paths (mha, mqa) plus the float64
// reference, in one `mla-diff run` on this machine's CPU. Records the whole process's wall time, the run
// JSON's per-path seconds, llama.cpp's own load and decode seconds, the time spent writing the engine's
// GGUF before llama.cpp starts, the verdict (it must be agree: a correct engine) and the machine.
// Writes bench/engines/results.json and re-renders the tables of bench/engines/results.md (between markers).
// Usage: npm run build && node bench/engines/run.mjs [--rounds 3] [--tokens 512,128] [--threads 2] [--reference-off-rounds 1] [--tp 8]
//   --tp N: run TP rank 0 of N (64/N heads) instead of all heads (for a machine where all heads are too slow).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const USAGE =
  'Usage: npm run build && node bench/engines/run.mjs [--rounds 3] [--tokens 512,128] [--threads 2] ' +
  '[--reference-off-rounds 1] [--tp 8] | --render';
if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const rounds = Number(arg('rounds', '3'));
const tokensList = arg('tokens', '512,128').split(',').map(Number);
const threads = Number(arg('threads', '2'));
const tp = arg('tp', null);
// extra rounds with the float64 reference off (--reference off): our paths then have both cores to themselves
const offRounds = Number(arg('reference-off-rounds', '1'));

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);
const JSON_PATH = 'bench/engines/results.json';
const MD_PATH = 'bench/engines/results.md';
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

function scenario(tokens) {
  const name = tp ? `tp0-of-${tp}` : 'all-heads';
  return [
    'version: 1',
    `name: engines-glm5-t${tokens}`,
    `description: GLM-5 layer, ${tokens}-token prefill, synthetic weights, ${tp ? `TP rank 0 of ${tp}` : 'all 64 heads'}; ` +
      'llama.cpp as the third-party path.',
    'model:',
    '  preset: glm-5',
    'weights:',
    '  synthetic: { seed: 0 }',
    'prompt:',
    `  length: ${tokens}`,
    'reference: on',
    'engines:',
    `  - { name: llama.cpp, cache_type: f16, arch: glm-dsa, threads: ${threads} }`,
    'cases:',
    `  - name: ${name}`,
    ...(tp ? [`    tp: { size: ${tp}, rank: 0 }`] : []),
    'expect:',
    '  outcome: agree',
    '',
  ].join('\n');
}

/** One CLI process: wall time, stderr lines with their arrival time (s from spawn), peak RSS (via /usr/bin/time). */
function runCli(args) {
  return new Promise((resolve, reject) => {
    const cmd = TIME ? TIME : process.execPath;
    const argv = TIME ? ['-f', 'MAXRSS_KB=%M', process.execPath, CLI, ...args] : [CLI, ...args];
    const t0 = performance.now();
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = [];
    let buf = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      const at = (performance.now() - t0) / 1000;
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop();
      for (const p of parts) lines.push({ at, text: p });
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = (performance.now() - t0) / 1000;
      if (buf) lines.push({ at: wall, text: buf });
      const rss = lines.find((l) => l.text.startsWith('MAXRSS_KB='));
      resolve({ code, wall, lines, stdout, maxRssMiB: rss ? Number(rss.text.slice(10)) / 1024 : null });
    });
  });
}

if (process.argv.includes('--render')) {
  render(JSON.parse(readFileSync(JSON_PATH, 'utf8')));
  process.exit(0);
}
const rows = [];
const work = mkdtempSync(join(os.tmpdir(), 'mla-diff-bench-engines-'));
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [tokens, reference] of tokensList.flatMap((t) => [[t, 'on'], ...(round <= offRounds ? [[t, 'off']] : [])])) {
      const file = join(work, `t${tokens}.yaml`);
      const out = join(work, `t${tokens}.json`);
      writeFileSync(file, scenario(tokens));
      rmSync(out, { force: true });
      // --keep-external keeps llama.cpp's exchange directory: its files' birth and modification times say
      // how long writing the engine's GGUF took (the run JSON's `external` seconds time the child process only).
      const r = await runCli([
        'run',
        file,
        '--device',
        'wasm',
        '--format',
        'json',
        '--out',
        out,
        '--verbose',
        '--keep-external',
        '--reference',
        reference,
      ]);
      if (r.code !== 0 || !existsSync(out)) {
        console.error(r.lines.map((l) => l.text).join('\n'));
        throw new Error(`mla-diff run ${file} exited ${r.code}`);
      }
      const report = JSON.parse(readFileSync(out, 'utf8'));
      const c = report.cases[0];
      const eng = c.trace.external?.engine;
      const dir = c.trace.external?.dir;
      let files = null;
      if (dir && existsSync(dir)) {
        const st = (f) => statSync(join(dir, f));
        const d = statSync(dir);
        const model = st('model.gguf');
        files = {
          modelBytes: model.size,
          // mkdtemp → job.json written: slicing the source, the GGUF, the embeddings, the job
          prepSeconds: (st('job.json').mtimeMs - d.birthtimeMs) / 1000,
          // model.gguf created → its last byte written
          modelWriteSeconds: (model.mtimeMs - model.birthtimeMs) / 1000,
        };
        rmSync(dir, { recursive: true, force: true });
      }
      const pairs = {};
      for (const x of c.trace.diffs) {
        const k = `${x.a}~${x.b}`;
        if (!(k in pairs) || x.relErr > pairs[k].relErr) pairs[k] = { stage: x.stage, relErr: x.relErr };
      }
      const row = {
        round,
        tokens,
        reference,
        case: c.trace.name,
        heads: c.trace.heads.count,
        exit: r.code,
        verdict: report.verdict,
        outcome: c.comparison.verdict,
        expectation: c.expectation ?? null,
        wallSeconds: r.wall,
        maxRssMiB: r.maxRssMiB,
        seconds: report.seconds,
        pathSeconds: c.trace.seconds,
        cold: c.trace.paths.cold ? 'ran' : 'not run (one prefill: no cold path)',
        llamacpp: eng
          ? {
              loadSeconds: eng.loadSeconds,
              decodeSeconds: eng.decodeSeconds,
              threads: eng.threads,
              graph: eng.graph,
              cacheType: eng.cacheType,
            }
          : null,
        engineFiles: files,
        worstPairs: pairs,
        device: report.device.description,
        engineDevice: c.trace.external?.device ?? null,
        engineSource: c.trace.external?.source ?? null,
        // the CLI's --verbose progress, with each line's arrival time (s from spawn); llama.cpp's own log left out
        log: r.lines
          .filter((l) => !l.text.includes('llama.cpp|') && !l.text.startsWith('MAXRSS'))
          .map((l) => [Number(l.at.toFixed(2)), l.text]),
      };
      rows.push(row);
      const ps = row.pathSeconds;
      console.log(
        `round ${round} T=${tokens} reference ${reference}: wall ${r.wall.toFixed(1)} s, ${report.verdict}; ` +
          `weights ${report.seconds.weights.toFixed(2)}, ` +
          `mha ${ps.mha.toFixed(2)}, mqa ${ps.mqa.toFixed(2)}, reference ${report.seconds.reference?.toFixed(2)}, ` +
          `external ${ps.external?.toFixed(2)} (load ${eng?.loadSeconds.toFixed(2)}, decode ${eng?.decodeSeconds.toFixed(2)}), ` +
          `GGUF prep ${files?.prepSeconds.toFixed(2)} s`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const cpu = os.cpus();
const machine = {
  cores: cpu.length,
  cpu: cpu[0]?.model ?? 'unknown',
  memGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  node: process.version,
  platform: `${os.type()} ${os.release()}`,
  loadAvgAfter: os.loadavg().map((x) => Number(x.toFixed(2))),
};
const command =
  `node bench/engines/run.mjs --rounds ${rounds} --tokens ${tokensList.join(',')} --threads ${threads} ` +
  `--reference-off-rounds ${offRounds}${tp ? ` --tp ${tp}` : ''}`;
const data = { date: new Date().toISOString().slice(0, 10), command, machine, rounds, threads, tp: tp ? Number(tp) : null, rows };
writeFileSync(JSON_PATH, `${JSON.stringify(data, null, 2)}\n`);
render(data);
if (rows.some((r) => r.verdict !== 'agree')) {
  console.error('a run did not agree: llama.cpp or a path is wrong (see results.json)');
  process.exit(1);
}

/** Re-renders the tables between `<!-- engines-… -->` markers in results.md (medians over the rounds). */
function render(d) {
  if (!existsSync(MD_PATH)) return;
  const med = (xs) => {
    const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : null;
  };
  const f = (x, n = 2) => (x == null ? '—' : x.toFixed(n));
  const Ts = [...new Set(d.rows.map((r) => `${r.tokens}/${r.reference}`))];
  const sel = (t) => d.rows.filter((r) => `${r.tokens}/${r.reference}` === t);
  const at = (t, g) => med(sel(t).map(g));
  const label = (t) => {
    const [n, ref] = t.split('/');
    return `${n}, reference ${ref} (${sel(t).length} round${sel(t).length > 1 ? 's' : ''})`;
  };
  const summary = [
    '| T, float64 reference | wall (s) | weights (s) | mha (s) | mqa (s) | float64 reference, own thread (s) | GGUF written (s) | ' +
      'llama.cpp child (s) | of it, load (s) | of it, decode (s) | peak RSS (MiB) | verdict |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...Ts.map(
      (t) =>
        `| ${label(t)} | ${f(at(t, (r) => r.wallSeconds))} | ${f(at(t, (r) => r.seconds.weights))} | ` +
        `${f(at(t, (r) => r.pathSeconds.mha))} | ${f(at(t, (r) => r.pathSeconds.mqa))} | ${f(at(t, (r) => r.seconds.reference))} | ` +
        `${f(at(t, (r) => r.engineFiles?.prepSeconds))} | ` +
        `${f(at(t, (r) => r.pathSeconds.external))} | ${f(at(t, (r) => r.llamacpp?.loadSeconds))} | ` +
        `${f(at(t, (r) => r.llamacpp?.decodeSeconds))} | ${f(
          at(t, (r) => r.maxRssMiB),
          0,
        )} | ` +
        `${[...new Set(sel(t).map((r) => r.verdict))].join(', ')} |`,
    ),
  ];
  const perRound = [
    '| round | T | reference | wall (s) | mha / mqa (s) | reference (s) | GGUF written (s) | llama.cpp child / load / decode (s) |',
    '|---|---|---|---|---|---|---|---|',
    ...d.rows.map(
      (r) =>
        `| ${r.round} | ${r.tokens} | ${r.reference} | ${f(r.wallSeconds)} | ${f(r.pathSeconds.mha)} / ${f(r.pathSeconds.mqa)} | ` +
        `${f(r.seconds.reference)} | ${f(r.engineFiles?.prepSeconds)} | ` +
        `${f(r.pathSeconds.external)} / ${f(r.llamacpp?.loadSeconds)} / ${f(r.llamacpp?.decodeSeconds)} |`,
    ),
  ];
  const vs = [
    '| T, float64 reference | llama.cpp decode (s) | mha (s) | mqa (s) | mha / llama.cpp | mqa / llama.cpp | ' +
      'worst rel. error llama.cpp↔mha | worst mha↔mqa |',
    '|---|---|---|---|---|---|---|---|',
    ...Ts.map((t) => {
      const dec = at(t, (r) => r.llamacpp?.decodeSeconds);
      const mha = at(t, (r) => r.pathSeconds.mha);
      const mqa = at(t, (r) => r.pathSeconds.mqa);
      const last = sel(t).at(-1);
      const e = last.worstPairs['external~mha'];
      const m = last.worstPairs['mha~mqa'];
      return (
        `| ${label(t)} | ${f(dec)} | ${f(mha)} | ${f(mqa)} | ${f(mha / dec)}× | ${f(mqa / dec)}× | ` +
        `${e ? `${e.relErr.toExponential(1)} (${e.stage})` : '—'} | ${m ? `${m.relErr.toExponential(1)} (${m.stage})` : '—'} |`
      );
    }),
  ];
  let md = readFileSync(MD_PATH, 'utf8');
  for (const [key, lines] of [
    ['engines-summary', summary],
    ['engines-rounds', perRound],
    ['engines-vs', vs],
  ]) {
    const re = new RegExp(`(<!-- ${key}: [^>]*-->\\n)[\\s\\S]*?(<!-- /${key} -->)`);
    md = md.replace(re, (_, a, b) => `${a}${lines.join('\n')}\n${b}`);
  }
  writeFileSync(MD_PATH, md);
}
