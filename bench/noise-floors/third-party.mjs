// Third-party floors calibration (issue 21, point 2): clean independent implementations run through the external
// protocol must never fail against float64 at k × their floor, and planted bugs must stay far above it.
//   clean: examples/backends/node-mla.mjs (float64, or --precision float32; --rope-angles float32 where it has it: its own
//          RoPE tables in fp32, as engines compute them) over presets, seeds, schedules and positions up to 131k;
//          examples/backends/mutants/mla-mutant.mjs without a mutant, where present.
//   planted: node-mla.mjs --fault w-uv-wrong-axis and every scenario under scenarios/mutants/ that declares a divergence.
// Per run: the worst ratio err / bound of the third party over every record (clean: must stay < 1), and for a planted bug
// its error at the first divergence over its bound there (the margin: ≥ 10 asked). Writes bench/noise-floors/third-party.{json,md}.
// Usage: npm run build && node bench/noise-floors/third-party.mjs [--quick]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const { loadScenario, parseScenario, runScenario, selectRuntime, CALIBRATED_K } = require('mla-diff');
const quick = process.argv.includes('--quick');
const NODE = resolve('examples/backends/node-mla.mjs');
const MUTANT = resolve('examples/backends/mutants/mla-mutant.mjs');
const nodeFlags = readFileSync(NODE, 'utf8');
const ropeFlag = nodeFlags.includes('--rope-angles') ? ' --rope-angles float32' : '';
const finite = (x) => typeof x === 'number' && Number.isFinite(x);

const SCHEDULES = {
  prompt: (pos) => `prompt: { length: 9, start_position: ${pos} }`,
  serving: (pos) =>
    `schedule: { context_chunk: 5, kv_splits: 3 }\nrequests:\n  - name: chat\n    position_offset: ${pos}\n` +
    '    steps: [{ prefill: 9, chunk: 5 }, { decode: 2 }]\n  - name: hit\n    start_step: 1\n    steps: [{ cached: 4 }, { prefill: 3 }]',
};

function yaml({ name, preset, seed, schedule, pos, command, cases }) {
  return [
    'version: 1',
    `name: ${name}`,
    `model: { preset: ${preset}, max_position_embeddings: 262144 }`,
    `weights: { synthetic: { seed: ${seed} } }`,
    SCHEDULES[schedule](pos),
    'reference: on',
    ...(cases ? [`cases:\n  - name: slice\n    tp: { size: ${cases}, rank: 0 }`] : []),
    `external: { command: ${JSON.stringify(command)}, name: third-party, timeout_s: 300 }`,
  ].join('\n');
}

const clean = [];
const presets = quick
  ? [['tiny', null]]
  : [
      ['tiny', null],
      ['deepseek-v3', 16],
      ['glm-5', 32],
    ];
for (const [preset, tp] of presets) {
  const seeds = preset === 'tiny' ? (quick ? [0, 1] : [0, 1, 2, 3, 4, 5]) : [0, 1];
  const positions = preset === 'tiny' ? [0, 4093, 131_000] : [4093, 131_000];
  for (const seed of seeds)
    for (const schedule of preset === 'tiny' ? ['prompt', 'serving'] : ['prompt'])
      for (const pos of positions)
        for (const precision of ['float64', 'float32']) {
          const flags = `--precision ${precision}${precision === 'float32' ? ropeFlag : ''}`;
          clean.push({
            name: `${preset}-s${seed}-${schedule}-p${pos}-${precision}`,
            preset,
            seed,
            schedule,
            pos,
            cases: tp,
            command: `node ${NODE} ${flags}`,
          });
        }
}
if (existsSync(MUTANT))
  for (const pos of [0, 131_000])
    clean.push({ name: `mutant-clean-p${pos}`, preset: 'tiny', seed: 9, schedule: 'serving', pos, command: `node ${MUTANT}` });

const rt = await selectRuntime('wasm');
const opts = { runtime: rt, toolVersion: 'bench', reference: 'on' };
/** The third party's worst err / bound over its records vs the reference, and where. */
function worst(c) {
  let best = { ratio: 0, stage: null, err: null, bound: null };
  for (const v of c.comparison.stages) {
    const p = v.pairs.find((x) => (x.a === 'external' && x.b === 'reference') || (x.b === 'external' && x.a === 'reference'));
    if (!p || !finite(p.relErr) || !finite(v.externalTolerance)) continue;
    const ratio = p.relErr / v.externalTolerance;
    if (ratio > best.ratio) best = { ratio, stage: v.stage, err: p.relErr, bound: v.externalTolerance, floor: v.externalFloor };
  }
  return best;
}

const t0 = performance.now();
const cleanRuns = [];
for (const s of clean) {
  const r = await runScenario(parseScenario(yaml(s), `<${s.name}>`), opts);
  const c = r.cases[0];
  cleanRuns.push({ name: s.name, command: s.command.replace(resolve('.') + '/', ''), verdict: c.comparison.verdict, ...worst(c) });
  console.log(`${s.name}: ${c.comparison.verdict}, worst ${worst(c).ratio.toFixed(3)} of the bound at ${worst(c).stage}`);
}

const planted = [];
const faultRuns = [
  ...['tiny', 'deepseek-v3'].map((preset) => ({
    name: `node-w-uv-wrong-axis-${preset}`,
    scenario: parseScenario(
      yaml({
        name: `w-uv-${preset}`,
        preset,
        seed: 1,
        schedule: 'prompt',
        pos: 0,
        cases: preset === 'tiny' ? null : 16,
        command: `node ${NODE} --fault w-uv-wrong-axis`,
      }),
      '<planted>',
    ),
  })),
  ...(existsSync('scenarios/mutants')
    ? readdirSync('scenarios/mutants')
        .filter((f) => f.endsWith('.yaml') && /outcome: diverge/.test(readFileSync(`scenarios/mutants/${f}`, 'utf8')))
        .map((f) => ({ name: f.replace('.yaml', ''), scenario: loadScenario(`scenarios/mutants/${f}`) }))
    : []),
];
for (const f of faultRuns) {
  const r = await runScenario(f.scenario, opts);
  const c = r.cases[0];
  const d = c.comparison.firstDivergence;
  const v =
    d && c.comparison.stages.find((x) => x.stage === d.stage && x.step === d.step && x.request === d.request && x.chunk === d.chunk);
  const bound = v ? (v.culprit === 'external' ? v.externalTolerance : v.tolerance) : null;
  const margin = d?.verdict === 'nan-introduced' ? Infinity : d && finite(d.relErr) && finite(bound) ? d.relErr / bound : null;
  planted.push({
    name: f.name,
    verdict: c.comparison.verdict,
    stage: d?.stage ?? null,
    culprit: d?.culprit ?? null,
    relErr: d?.relErr ?? null,
    bound,
    margin,
  });
  console.log(`${f.name}: ${c.comparison.verdict} at ${d?.stage} (${d?.culprit}), ${margin?.toFixed?.(1)}× its bound`);
}

const fp = cleanRuns.filter((r) => r.verdict !== 'agree');
const weakest = planted.filter((p) => finite(p.margin)).sort((a, b) => a.margin - b.margin)[0] ?? null;
const result = {
  command: `node bench/noise-floors/third-party.mjs${quick ? ' --quick' : ''}`,
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} × ${os.availableParallelism()}`,
  k: CALIBRATED_K,
  ropeAnglesFp32: ropeFlag !== '',
  seconds: (performance.now() - t0) / 1000,
  clean: { runs: cleanRuns.length, falsePositives: fp.length, worstRatio: Math.max(...cleanRuns.map((r) => r.ratio)), list: cleanRuns },
  planted: { runs: planted.length, missed: planted.filter((p) => p.verdict !== 'diverge').length, weakest, list: planted },
};
writeFileSync('bench/noise-floors/third-party.json', JSON.stringify(result, null, 1) + '\n');
const f = (x) => (finite(x) ? (Math.abs(x) >= 0.01 && Math.abs(x) < 1e4 ? x.toPrecision(3) : x.toExponential(2)) : String(x));
const md = [
  '# Third-party floors calibration (issue 21)',
  '',
  `\`${result.command}\` on ${result.machine}, ${result.date.slice(0, 10)}, k = ${result.k}, ${f(result.seconds)} s.`,
  'A third party is judged against the float64 reference at k × its floor (src/harness/compare/third-party.ts).',
  '',
  `- **Clean runs: ${result.clean.runs}, false positives: ${fp.length}**; the worst record of any clean run sits at ` +
    `${f(result.clean.worstRatio)} of its bound (${f(result.clean.worstRatio * result.k)} floors).` +
    (result.ropeAnglesFp32 ? ' The float32 runs compute their own RoPE tables in fp32, as engines do.' : ''),
  `- **Planted: ${planted.length}, missed: ${result.planted.missed}**; the weakest at ` +
    (weakest ? `${f(weakest.margin)}× its bound (${weakest.name}, ${weakest.stage}).` : 'n/a.'),
  '',
  '| clean run | verdict | worst err / bound | at | err | bound |',
  '|---|---|---|---|---|---|',
  ...cleanRuns.map((r) => `| ${r.name} | ${r.verdict} | ${f(r.ratio)} | ${r.stage} | ${f(r.err)} | ${f(r.bound)} |`),
  '',
  '| planted | verdict | first divergence | culprit | err | bound | margin |',
  '|---|---|---|---|---|---|---|',
  ...planted.map((p) => `| ${p.name} | ${p.verdict} | ${p.stage} | ${p.culprit} | ${f(p.relErr)} | ${f(p.bound)} | ${f(p.margin)}× |`),
  '',
];
writeFileSync('bench/noise-floors/third-party.md', md.join('\n'));
console.log(`clean ${cleanRuns.length}, false positives ${fp.length}; planted ${planted.length}, weakest ${weakest?.margin}`);
