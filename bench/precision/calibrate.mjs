// Noise-floor calibration of the precision modes (issue 7): the fp32 calibration of issue 5
// (bench/noise-floors/run.mjs) again in bf16/fp16 and with an fp8 latent cache. Per mode, the
// repository's clean scenarios run on wasm with `precision` overridden, the float64 reference and
// the cold path on, judged by {floor: K}; then the selftest plan runs in bf16 + vllm-triton-mla with
// the precision default tolerance ({floor: PRECISION_K}). Stores its data under 'calibration' in
// bench/precision/results.json and re-renders that section of bench/precision/results.md (render-calibration.mjs).
// Usage: npm run build && node bench/precision/calibrate.mjs [--k 8] [--plan quick|full] [--modes a,b]
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { finite, quantiles, recordsOf } from '../noise-floors/records.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/precision/calibrate.mjs [--k 8] [--plan quick|full] [--modes a,b]');
  process.exit(0);
}
const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { loadScenario, parseScenario, runScenario, selectRuntime, selftestCases, SELFTEST_QUICK, SELFTEST_FULL, PRECISION_K, FAULTS } = api;

const arg = (n, d) => (process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : d);
const K = Number(arg('--k', PRECISION_K));
const plan = arg('--plan', 'quick');
const tensor = (k_scale) => ({ kind: 'per-tensor', k_scale });
const triton = { mha: 'vllm-fa3-prefill', mqa: 'vllm-triton-mla' };
/** The modes: PrecisionSpec as src/core/precision/plan.ts has it; per-token scales need kv_lora_rank % 128 = 0. */
export const MODES = {
  'bf16 vllm-triton-mla': { dtype: 'bfloat16', kvCache: 'auto', cacheScale: tensor(1), rounding: triton },
  'bf16 vllm-flashmla': {
    dtype: 'bfloat16',
    kvCache: 'auto',
    cacheScale: tensor(1),
    rounding: { mha: 'vllm-fa3-prefill', mqa: 'vllm-flashmla' },
  },
  'fp16 vllm-triton-mla': { dtype: 'float16', kvCache: 'auto', cacheScale: tensor(1), rounding: triton },
  'bf16 fp8 k_scale 1': { dtype: 'bfloat16', kvCache: 'fp8_e4m3', cacheScale: tensor(1), rounding: triton },
  'bf16 fp8 k_scale 0.5': { dtype: 'bfloat16', kvCache: 'fp8_e4m3', cacheScale: tensor(0.5), rounding: triton },
  'bf16 fp8 per-token': { dtype: 'bfloat16', kvCache: 'fp8_e4m3', cacheScale: { kind: 'per-token', tile: 128 }, rounding: triton },
};
const modes = arg(
  '--modes',
  Object.keys(MODES)
    .filter((m) => m !== 'bf16 fp8 k_scale 0.5')
    .join(','),
).split(',');
// As bench/noise-floors/run.mjs selects them, without its two big schedules and the 2048-token bf16 one (> 60 s each),
// and capital-of-france.yaml: with its precision replaced it is capital-of-france-bf16.yaml (same layer, weights, prompt).
const SKIP = ['chunked-prefill.yaml', 'multi-turn.yaml', 'long-context-bf16.yaml', 'capital-of-france.yaml'];
// 'bf16 fp8 k_scale 0.5' only with --modes (time): fp8-cache-decode.yaml runs k_scale 0.5 in its own precision below.
const all = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml') && !/^faults:|loader_fault:|^\s+outcome: diverge/m.test(readFileSync(`scenarios/${f}`, 'utf8')))
  .sort();
const files = all.filter((f) => !SKIP.includes(f));

const rt = await selectRuntime('wasm');
const t0 = performance.now();
async function run(s) {
  s.schedule.cold = 'on';
  const t = performance.now();
  const r = await runScenario(s, { runtime: rt, toolVersion: 'bench', reference: 'on' });
  return { r, seconds: (performance.now() - t) / 1000 };
}
const first = (c) => {
  const f = c.comparison.firstDivergence;
  const v = c.comparison.stages.find((x) => x.verdict !== 'ok');
  return f ? { step: f.step, request: f.request, stage: f.stage, chunk: f.chunk, culprit: f.culprit, verdict: v?.verdict } : null;
};

/** Per stage over the activation records: largest worst-pair ratio, engine ratio, floor range. */
function perStage(recs) {
  const out = {};
  for (const x of recs) {
    const e = (out[x.stage] ??= { records: 0, floorMin: Infinity, floorMax: 0, engineRatioMax: 0, worstRatioMax: 0 });
    e.records++;
    e.floorMin = Math.min(e.floorMin, x.floor);
    e.floorMax = Math.max(e.floorMax, x.floor);
    e.engineRatioMax = Math.max(e.engineRatioMax, x.engineRatio ?? 0);
    e.worstRatioMax = Math.max(e.worstRatioMax, x.worstRatio ?? 0);
  }
  return out;
}

/** Ratios over every activation record of the clean runs `runs` ({where, records, verdict}). */
function summarize(runs) {
  const recs = runs.flatMap((x) => x.records.filter((r) => r.kind === 'activation').map((r) => ({ ...r, where: x.where })));
  const top = recs.filter((x) => finite(x.worstRatio)).reduce((a, b) => (a && a.worstRatio >= b.worstRatio ? a : b), null);
  return {
    runs: runs.length,
    records: recs.length,
    worstRatio: quantiles(recs.map((x) => x.worstRatio)),
    engineRatio: quantiles(recs.map((x) => x.engineRatio)),
    pathRatio: Object.fromEntries(['mha', 'mqa', 'cold'].map((p) => [p, quantiles(recs.map((x) => x.pathRatio[p]))])),
    max: top && {
      where: top.where,
      step: top.step,
      request: top.request,
      label: top.label,
      floor: top.floor,
      source: top.source,
      worstRatio: top.worstRatio,
    },
    falsePositives: runs.filter((x) => x.verdict !== 'agree').map((x) => ({ where: x.where, verdict: x.verdict, first: x.first })),
    nanRecords: recs.filter((x) => x.verdict === 'nan-introduced').length,
    perStage: perStage(recs),
  };
}

const results = {};
for (const m of modes) {
  const spec = MODES[m];
  const runs = [];
  const scenarios = [];
  for (const f of files) {
    const s = loadScenario(`scenarios/${f}`);
    if (spec.cacheScale.kind === 'per-token' && s.config.kv_lora_rank % 128 !== 0) continue;
    s.precision = spec;
    s.tolerances = { default: { floor: K } };
    try {
      const { r, seconds } = await run(s);
      for (const c of r.cases)
        runs.push({ where: `${f} · ${c.trace.name}`, verdict: c.comparison.verdict, first: first(c), records: recordsOf(c) });
      scenarios.push({ file: f, verdict: r.verdict, weights: r.weights?.comparison?.verdict, seconds });
      console.log(`${m}: ${f}: ${r.verdict}, ${seconds.toFixed(1)} s`);
    } catch (err) {
      scenarios.push({ file: f, error: String(err.message ?? err).slice(0, 300) });
      console.log(`${m}: ${f}: error ${err.code ?? ''} ${err.message}`);
    }
  }
  results[m] = { spec, scenarios, ...summarize(runs) };
}

// Faults: the selftest plan in bf16 + vllm-triton-mla, judged by the precision default ({floor: PRECISION_K}).
const bf16 = (yaml) => `${yaml}\ndtype: bfloat16\nrounding: vllm-triton-mla`;
const faults = [];
const cleanSelftest = [];
for (const c of selftestCases({ ...(plan === 'full' ? SELFTEST_FULL : SELFTEST_QUICK), ...(K === PRECISION_K ? {} : { floor: K }) })) {
  const s = parseScenario(bf16(c.yaml), `<selftest ${c.name}>`);
  const { r } = await run(s);
  const cs = r.cases[0];
  const recs = recordsOf(cs);
  if (!c.fault) {
    cleanSelftest.push({ where: c.name, verdict: cs.comparison.verdict, first: first(cs), records: recs });
    continue;
  }
  const def = FAULTS[c.fault.fault];
  const fd = first(cs);
  const at = recs.filter((x) => x.stage === def.enters);
  const i = recs.findIndex((x) => x.stage === def.enters);
  faults.push({
    name: c.name,
    fault: c.fault.fault,
    path: c.fault.path,
    enters: def.enters,
    alsoEnters: def.alsoEnters ?? [],
    detected: r.verdict === 'diverge',
    first: fd,
    localized: fd?.stage === def.enters,
    localizedAlso: Boolean(fd && [def.enters, ...(def.alsoEnters ?? [])].includes(fd.stage)),
    attributed: fd?.culprit === c.fault.path,
    nan: at.some((x) => x.verdict === 'nan-introduced'),
    ratio: at.length ? Math.max(...at.map((x) => x.worstRatio ?? 0)) : null,
    floorAtEntry: at.length ? Math.min(...at.map((x) => x.floor)) : null,
    before: Math.max(0, ...recs.slice(0, i < 0 ? recs.length : i).map((x) => x.worstRatio ?? 0)),
  });
  console.log(`fault ${c.name}: ${r.verdict}${fd ? ` at ${fd.stage} (${fd.culprit})` : ''}`);
}
const ok = faults.filter((f) => !f.nan && finite(f.ratio));
const selftest = {
  plan,
  mode: 'bf16 vllm-triton-mla',
  k: K,
  clean: summarize(cleanSelftest),
  faults,
  weakest: ok.reduce((a, b) => (a && a.ratio <= b.ratio ? a : b), null),
  missed: faults.filter((f) => !f.detected).map((f) => f.name),
  mislocalized: faults
    .filter((f) => f.detected && !f.localized)
    .map((f) => ({ name: f.name, first: f.first, enters: f.enters, ratio: f.ratio })),
  misattributed: faults.filter((f) => f.detected && !f.attributed).map((f) => f.name),
};
const res = {
  command: `node bench/precision/calibrate.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
  date: new Date().toISOString(),
  k: K,
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, device: rt.device.description },
  seconds: (performance.now() - t0) / 1000,
  skipped: all.filter((f) => SKIP.includes(f)),
  modes: results,
  selftest,
};
const { writeCalibration } = await import('./render-calibration.mjs');
writeCalibration(res);
for (const [m, x] of Object.entries(results))
  console.log(
    `${m}: ${x.records} records, max ${x.worstRatio.max?.toFixed(2)} p99 ${x.worstRatio.p99?.toFixed(2)}, ` +
      `${x.falsePositives.length} false positives`,
  );
console.log(
  `faults: ${faults.length}, missed ${selftest.missed.length}, mislocalized ${selftest.mislocalized.length}, weakest ` +
    `${selftest.weakest?.name} ${selftest.weakest?.ratio?.toExponential(2)}; ${res.seconds.toFixed(0)} s`,
);
