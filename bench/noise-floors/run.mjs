// Noise-floor calibration (issue 5, point 2): runs the repository's clean scenarios and the
// selftest plan (its clean runs and its planted faults) on wasm with the float64 reference and the
// fp32 cold path on, and measures per record the noise floor (src/harness/compare/floors.ts), each fp32
// path's relErr against float64, and every pair's relErr in units of the floor. Writes
// bench/noise-floors/results.{json,md}.
// Usage: npm run build && node bench/noise-floors/run.mjs [--all] [--k 8]
//   --all also runs the two largest GLM-5 schedules (chunked-prefill 2048 tokens, multi-turn), ~2.5 min more.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { loadScenario, parseScenario, runScenario, selectRuntime, selftestCases, SELFTEST_FULL, CALIBRATED_K } = api;
const { finite, quantiles: q, recordsOf } = await import('./records.mjs');

const all = process.argv.includes('--all');
const kArg = process.argv.indexOf('--k');
const K = kArg > 0 ? Number(process.argv[kArg + 1]) : CALIBRATED_K;
const BIG = ['chunked-prefill.yaml', 'multi-turn.yaml'];
// Clean: no planted fault (faults:), no loader fault, and declared to agree (a broken external backend plants its fault in its command).
const files = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml') && !/^faults:|loader_fault:|^\s+outcome: diverge/m.test(readFileSync(`scenarios/${f}`, 'utf8')))
  .sort();
const skipped = all ? [] : files.filter((f) => BIG.includes(f));
const rt = await selectRuntime('wasm');
const t0 = performance.now();
async function run(s) {
  s.schedule.cold = 'on'; // floors come from the cold path (a `{floor: k}` tolerance turns it on by itself)
  const t = performance.now();
  const r = await runScenario(s, { runtime: rt, toolVersion: 'bench', reference: 'on' });
  return { r, seconds: (performance.now() - t) / 1000 };
}

const scenarios = [];
for (const f of files.filter((x) => !skipped.includes(x))) {
  const { r, seconds } = await run(loadScenario(`scenarios/${f}`));
  const cases = r.cases.map((c) => ({ case: c.trace.name, verdict: c.comparison.verdict, records: recordsOf(c) }));
  scenarios.push({ file: `scenarios/${f}`, name: r.scenario.name, preset: r.scenario.preset, verdict: r.verdict, seconds, cases });
  console.log(`${f}: ${r.verdict}, ${seconds.toFixed(1)} s`);
}

const plan = selftestCases(SELFTEST_FULL);
const clean = [];
const faults = [];
for (const c of plan) {
  const { r } = await run(parseScenario(c.yaml, `<selftest ${c.name}>`));
  const recs = recordsOf(r.cases[0]);
  if (!c.fault) {
    clean.push({ name: c.name, verdict: r.verdict, records: recs });
    continue;
  }
  const at = recs.filter((x) => x.stage === c.expect.stage);
  // A fault that shows as NaN (merge-inf-unhandled) is caught as nan-introduced, whatever k: not an error ratio.
  const nan = at.some((x) => x.verdict === 'nan-introduced');
  const before = recs.slice(
    0,
    recs.findIndex((x) => x.stage === c.expect.stage),
  );
  faults.push({
    name: c.name,
    fault: c.fault.fault,
    path: c.fault.path,
    stage: c.expect.stage,
    nan,
    /** The fault's error at the stage it enters, in floors (the largest over that stage's records). */
    ratio: Math.max(...at.map((x) => x.worstRatio ?? 0)),
    /** The largest ratio before it (must stay under k, or the fault is localized too early). */
    before: Math.max(0, ...before.map((x) => x.worstRatio ?? 0)),
  });
}
console.log(`selftest plan: ${clean.length} clean, ${faults.length} fault runs`);

// Calibration: ratios over every activation record of every clean run.
const cleanRecs = [...scenarios.flatMap((s) => s.cases.flatMap((c) => c.records)), ...clean.flatMap((c) => c.records)].filter(
  (x) => x.kind === 'activation',
);
const perStage = {};
for (const x of cleanRecs) {
  const e = (perStage[x.stage] ??= {
    records: 0,
    floorMin: Infinity,
    floorMax: 0,
    sources: {},
    vsRefMax: {},
    engineRatioMax: 0,
    worstRatioMax: 0,
  });
  e.records++;
  e.floorMin = Math.min(e.floorMin, x.floor);
  e.floorMax = Math.max(e.floorMax, x.floor);
  e.sources[x.source] = (e.sources[x.source] ?? 0) + 1;
  for (const [p, v] of Object.entries(x.vsReference)) if (finite(v)) e.vsRefMax[p] = Math.max(e.vsRefMax[p] ?? 0, v);
  e.engineRatioMax = Math.max(e.engineRatioMax, x.engineRatio ?? 0);
  e.worstRatioMax = Math.max(e.worstRatioMax, x.worstRatio ?? 0);
}
const calibration = {
  records: cleanRecs.length,
  engineRatio: q(cleanRecs.map((x) => x.engineRatio)),
  pathRatio: Object.fromEntries(['mha', 'mqa', 'cold'].map((p) => [p, q(cleanRecs.map((x) => x.pathRatio[p]))])),
  worstRatio: q(cleanRecs.map((x) => x.worstRatio)),
  faultRatioMin: Math.min(...faults.filter((f) => !f.nan).map((f) => f.ratio)),
  faultWeakest: faults.filter((f) => !f.nan).reduce((a, b) => (b.ratio < a.ratio ? b : a)),
  faultNan: [...new Set(faults.filter((f) => f.nan).map((f) => f.fault))],
  faultBeforeMax: Math.max(...faults.map((f) => f.before)),
  k: K,
};
calibration.cleanMargin = K / calibration.worstRatio.max;
calibration.faultMargin = calibration.faultRatioMin / K;
const seconds = (performance.now() - t0) / 1000;
const result = {
  command: `node bench/noise-floors/run.mjs${all ? ' --all' : ''}${kArg > 0 ? ` --k ${K}` : ''}`,
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, device: rt.device.description },
  seconds,
  skipped,
  calibration,
  perStage,
  scenarios,
  selftest: { clean: clean.map(({ name, verdict }) => ({ name, verdict })), faults },
};
writeFileSync('bench/noise-floors/results.json', JSON.stringify(result, null, 1) + '\n');
const { renderMarkdown } = await import('./render.mjs');
writeFileSync('bench/noise-floors/results.md', renderMarkdown(result));
console.log(
  `k ${K}: clean worst ratio ${calibration.worstRatio.max.toFixed(2)} (margin ${calibration.cleanMargin.toFixed(1)}×), weakest ` +
    `fault ${calibration.faultRatioMin.toExponential(2)} floors (margin ${calibration.faultMargin.toExponential(1)}×); ` +
    `${seconds.toFixed(0)} s`,
);
