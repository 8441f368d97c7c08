// Issue 20 point 7: reads the results.tar.xz archives that bench/engines/gpu.sh wrote on the device machine
// and writes bench/engines/gpu-results.json (every run: verdict, wall, devices, llama.cpp's times, per stage
// relErr of llama.cpp against float64, or against our fp32 mha path where the reference was off) and the
// tables of bench/engines/gpu-results.md between its markers.
// Usage: node bench/engines/gpu-summary.mjs RUN.tar.xz [EXTRA.tar.xz ...]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const archives = process.argv.slice(2);
if (!archives.length || archives.includes('--help')) {
  console.log('Usage: node bench/engines/gpu-summary.mjs RUN.tar.xz [EXTRA.tar.xz ...]');
  process.exit(archives.length ? 0 : 2);
}
const JSON_PATH = 'bench/engines/gpu-results.json';
const MD_PATH = 'bench/engines/gpu-results.md';
const STAGES = [
  'q_c_raw',
  'kv_lora',
  'q_full_prerope',
  'q_pe',
  'kv_cache',
  'ql_nope',
  'mqa_q',
  'logits',
  'attn_probs',
  'attn_out_latent',
  'attn_out_heads',
  'o_proj_out',
];
const read = (dir, f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8').trim() : null);

const runs = [];
for (const [i, archive] of archives.entries()) {
  const dir = mkdtempSync(join(os.tmpdir(), 'gpu-summary-'));
  try {
    execFileSync('tar', ['-C', dir, '-xJf', archive]);
    for (const yaml of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      const name = yaml.slice(0, -5);
      const m = /^t(\d+)-(f16|f32)-fa(on|off)-(ref|noref)(?:-(.*))?$/.exec(name);
      const env = [...readFileSync(join(dir, yaml), 'utf8').matchAll(/gpu_layers: (\d+)/g)].map((x) => Number(x[1]));
      const rc = read(dir, `${name}.rc`);
      const time = read(dir, `${name}.time`)?.split('\n').pop() ?? null;
      const log = read(dir, `${name}.log`) ?? '';
      const vk = /ggml_vulkan: 0 = (.*)/.exec(log)?.[1] ?? null;
      const error = /internal error: (.*)/.exec(log)?.[1] ?? null;
      const row = {
        name,
        call: i + 1,
        tokens: Number(m[1]),
        cache: m[2],
        flashAttn: m[3] === 'on',
        reference: m[4] === 'ref',
        variant: m[5] ?? null,
        gpuLayers: env[0],
        exit: rc === null ? null : Number(rc),
        finished: rc !== null,
        error,
        wallSeconds: time ? Number(/wall ([\d.]+) s/.exec(time)[1]) : null,
        maxRssMiB: time ? Math.round(Number(/max RSS (\d+) KiB/.exec(time)[1]) / 1024) : null,
        vulkanDevice: vk,
      };
      const file = join(dir, `${name}.json`);
      if (existsSync(file)) {
        const r = JSON.parse(readFileSync(file, 'utf8'));
        const c = r.cases[0];
        const e = c.trace.external;
        const against = row.reference ? 'reference' : 'mha';
        Object.assign(row, {
          verdict: r.verdict,
          ourDevice: r.device.description,
          engineDevice: e.device,
          engineDevices: e.engine.devices,
          precisionClaimed: e.precision,
          seconds: { ...r.seconds, ...c.trace.seconds, llamaLoad: e.engine.loadSeconds, llamaDecode: e.engine.decodeSeconds },
          against,
          firstDivergence: c.comparison.firstDivergence
            ? {
                stage: c.comparison.firstDivergence.stage,
                relErr: c.comparison.firstDivergence.relErr,
                culprit: c.comparison.firstDivergence.culprit,
              }
            : null,
          stages: c.comparison.stages
            .filter((s) => s.pairs.some((p) => p.a === 'external'))
            .map((s) => {
              const p = s.pairs.find((q) => q.a === 'external' && q.b === against) ?? s.pairs.find((q) => q.a === 'external');
              const ours = s.pairs.find((q) => q.a === 'mha' && q.b === 'reference');
              return {
                stage: s.stage,
                versus: p.b,
                relErr: p.relErr,
                verdict: p.verdict,
                tolerance: s.tolerance,
                externalTolerance: s.externalTolerance ?? s.tolerance,
                floor: s.floor?.value ?? null,
                mhaVsReference: ours?.relErr ?? null,
              };
            }),
        });
      }
      runs.push(row);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const order = (r) => [
  r.call,
  r.tokens,
  r.reference ? 0 : 1,
  r.gpuLayers ? 0 : 1,
  r.variant ?? '',
  r.cache === 'f32' ? 0 : 1,
  r.flashAttn ? 1 : 0,
];
runs.sort((a, b) => {
  const x = order(a),
    y = order(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
});
writeFileSync(JSON_PATH, JSON.stringify({ command: 'node bench/engines/gpu-summary.mjs ' + archives.join(' '), runs }, null, 1) + '\n');

const e = (v) => (v == null ? '—' : v.toExponential(1));
const label = (r) =>
  [
    `T ${r.tokens}`,
    r.cache,
    `FA ${r.flashAttn ? 'on' : 'off'}`,
    ...(r.gpuLayers ? [] : ['CPU build']),
    ...(r.variant && r.variant !== 'cpu' ? [r.variant] : []),
  ].join(', ');
const done = runs.filter((r) => r.stages);
const firstCell = (r, first) =>
  first
    ? `${first.stage} (${e(first.relErr)}, tolerance ${e(first.externalTolerance)})`
    : r.stages
      ? 'none'
      : (r.error ?? 'stopped at the deadline');
const summary = [
  '| run | vs | verdict | exit | first out of tolerance (relErr) | o_proj_out relErr | wall (s) | ' +
    'llama.cpp decode (s) | llama.cpp device |',
  '|---|---|---|---|---|---|---|---|---|',
  ...runs.map((r) => {
    const o = r.stages?.find((s) => s.stage === 'o_proj_out');
    const first = r.stages?.find((s) => s.verdict !== 'ok');
    return (
      `| ${r.name} (${label(r)}) | ${r.against ?? '—'} | ${r.verdict ?? (r.finished ? 'error' : 'not finished')} | ${r.exit ?? '—'} | ` +
      `${firstCell(r, first)} | ` +
      `${e(o?.relErr)} | ${r.wallSeconds ?? '—'} | ${r.seconds?.llamaDecode?.toFixed(2) ?? '—'} | ${r.engineDevices?.[0] ?? '—'} |`
    );
  }),
];
const at = (r, stage) => r.stages.find((x) => x.stage === stage);
const stageTable = (rows) => [
  `| stage | ${rows.map((r) => r.name).join(' | ')} |`,
  `|---|${rows.map(() => '---').join('|')}|`,
  ...STAGES.map((st) => {
    const cells = rows.map((r) => {
      const s = r.stages.find((x) => x.stage === st);
      return s ? `${e(s.relErr)}${s.verdict === 'ok' ? '' : ' ✗'}` : '—';
    });
    return `| ${st} | ${cells.join(' | ')} |`;
  }),
  `| (tolerance at logits) | ${rows.map((r) => e(r.stages.find((x) => x.stage === 'logits')?.externalTolerance)).join(' | ')} |`,
  `| (our mha vs float64 at o_proj_out) | ${rows.map((r) => e(at(r, 'o_proj_out')?.mhaVsReference)).join(' | ')} |`,
];
const refRows = done.filter((r) => r.reference);
const noRefRows = done.filter((r) => !r.reference);
const block = [
  '<!-- gpu-summary: rendered from gpu-results.json by bench/engines/gpu-summary.mjs -->',
  ...summary,
  '',
  'Per stage, llama.cpp against **float64** (relErr; ✗ out of the tolerance the harness judges llama.cpp by):',
  '',
  ...stageTable(refRows),
  '',
  'Per stage, llama.cpp against **our fp32 mha path** (the float64 reference off; mha is 1e-6 from float64 at T = 512):',
  '',
  ...stageTable(noRefRows),
  '<!-- /gpu-summary -->',
].join('\n');
if (existsSync(MD_PATH)) {
  const md = readFileSync(MD_PATH, 'utf8');
  const a = md.indexOf('<!-- gpu-summary');
  const b = md.indexOf('<!-- /gpu-summary -->');
  if (a >= 0 && b > a) writeFileSync(MD_PATH, md.slice(0, a) + block + md.slice(b + '<!-- /gpu-summary -->'.length));
} else writeFileSync(MD_PATH, block + '\n');
console.log(block);
