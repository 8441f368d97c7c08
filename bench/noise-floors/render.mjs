// Renders bench/noise-floors/results.json as Markdown (imported by run.mjs; also `node render.mjs` to re-render).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const e = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x === 0 ? '0' : x.toExponential(1));
export const r = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(2));
export const sources = (s) =>
  Object.entries(s)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

/** Per case: one row per stage, the records of that stage over every piece folded. */
export function caseTable(c) {
  const by = new Map();
  for (const x of c.records) {
    const e0 = by.get(x.stage) ?? { n: 0, floorMin: Infinity, floorMax: 0, sources: {}, vs: {}, ratio: 0, eng: 0 };
    e0.n++;
    e0.floorMin = Math.min(e0.floorMin, x.floor);
    e0.floorMax = Math.max(e0.floorMax, x.floor);
    e0.sources[x.source] = (e0.sources[x.source] ?? 0) + 1;
    for (const [p, v] of Object.entries(x.vsReference)) if (v !== null) e0.vs[p] = Math.max(e0.vs[p] ?? 0, v);
    e0.ratio = Math.max(e0.ratio, x.worstRatio ?? 0);
    e0.eng = Math.max(e0.eng, x.engineRatio ?? 0);
    by.set(x.stage, e0);
  }
  return [
    '| stage | records | floor (min–max) | source | mha vs fp64 (max) | mqa vs fp64 (max) | cold vs fp64 (max) | max mha↔mqa / ' +
      'floor | max err / floor |',
    '|---|---|---|---|---|---|---|---|---|',
    ...[...by.entries()].map(
      ([s, x]) =>
        `| ${s} | ${x.n} | ${e(x.floorMin)}${x.floorMax > x.floorMin ? `–${e(x.floorMax)}` : ''} | ${sources(x.sources)} | ` +
        `${e(x.vs.mha)} | ${e(x.vs.mqa)} | ${e(x.vs.cold)} | ${r(x.eng)} | ${r(x.ratio)} |`,
    ),
  ].join('\n');
}

export function renderMarkdown(res) {
  const c = res.calibration;
  const qrow = (name, x) => `| ${name} | ${x.n} | ${r(x.p50)} | ${r(x.p90)} | ${r(x.p99)} | ${r(x.max)} |`;
  const perFault = new Map();
  for (const f of res.selftest.faults) {
    const x = perFault.get(f.fault) ?? { runs: 0, min: Infinity, max: 0, before: 0, stage: f.stage, nan: 0 };
    x.runs++;
    if (f.nan) x.nan++;
    x.min = Math.min(x.min, f.ratio);
    x.max = Math.max(x.max, f.ratio);
    x.before = Math.max(x.before, f.before);
    perFault.set(f.fault, x);
  }
  return [
    '# Noise floors: per-stage fp32 error against float64, and the k of `{floor: k}`',
    '',
    '```',
    'npm run build && ' + res.command,
    '```',
    '',
    `${res.date.slice(0, 10)}, ${res.machine.cpus} × ${res.machine.cpu}, Node ${res.machine.node}, ${res.machine.device}; ` +
      `${res.seconds.toFixed(0)} s.`,
    'Every run with the float64 reference and the fp32 cold path on. Floor of a record: relErr(cold, reference) there;',
    'records cold does not have (MQA-only, context stages) take the largest floor upstream in their piece (`↑`); weight',
    'stages the fp32 unit roundoff (src/harness/compare/floors.ts, docs/noise-floors.md). Ratios: relErr / floor of the record.',
    res.skipped.length
      ? `Skipped (over the ~5 min budget on 2 cores; \`--all\` runs them): ${res.skipped.join(', ')}.`
      : 'Every clean scenario ran.',
    '',
    '## Calibration',
    '',
    `Over ${c.records} activation records of clean runs (${res.scenarios.length} scenarios, ${res.selftest.clean.length} clean ` +
      `selftest runs):`,
    '',
    '| ratio | records | p50 | p90 | p99 | max |',
    '|---|---|---|---|---|---|',
    qrow('relErr(mha, mqa) / floor', c.engineRatio),
    qrow('err(mha, fp64) / floor', c.pathRatio.mha),
    qrow('err(mqa, fp64) / floor', c.pathRatio.mqa),
    qrow('err(cold, fp64) / floor', c.pathRatio.cold),
    qrow('largest pair / floor (what k bounds)', c.worstRatio),
    '',
    `Planted faults (${res.selftest.faults.length} selftest runs): the fault's error at the stage it enters is at least **` +
      `${e(c.faultRatioMin)}** floors`,
    `(weakest: ${c.faultWeakest.name}, ${c.faultWeakest.stage}); before that stage no record exceeds ${r(c.faultBeforeMax)} floors.`,
    c.faultNan.length
      ? `Not an error ratio: ${c.faultNan.join(', ')} puts NaN into the stage it enters (judged nan-introduced, at any k); its ` +
        `finite positions' ratio is shown for completeness.`
      : '',
    '',
    `**k = ${c.k}**: ${r(c.cleanMargin)}× above the largest clean ratio, the weakest fault ${e(c.faultMargin)}× above it.`,
    '',
    '| fault | runs | enters | err/floor there (min) | (max) | largest ratio before it | NaN there |',
    '|---|---|---|---|---|---|---|',
    ...[...perFault.entries()].map(
      ([n, x]) => `| ${n} | ${x.runs} | ${x.stage} | ${e(x.min)} | ${e(x.max)} | ${r(x.before)} | ${x.nan ? `${x.nan}/${x.runs}` : ''} |`,
    ),
    '',
    '## Per stage, all clean runs',
    '',
    '| stage | records | floor (min–max) | sources | mha vs fp64 (max) | mqa vs fp64 (max) | cold vs fp64 (max) | max mha↔mqa ' +
      '/ floor | max err / floor |',
    '|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(res.perStage).map(
      ([s, x]) =>
        `| ${s} | ${x.records} | ${e(x.floorMin)}–${e(x.floorMax)} | ${sources(x.sources)} | ${e(x.vsRefMax.mha)} | ` +
        `${e(x.vsRefMax.mqa)} | ${e(x.vsRefMax.cold)} | ${r(x.engineRatioMax)} | ${r(x.worstRatioMax)} |`,
    ),
    '',
    '## Per scenario',
    '',
    ...res.scenarios.flatMap((s) =>
      s.cases.flatMap((cs) => [`### ${s.file} · ${cs.case} (${s.preset}, ${s.verdict}, ${s.seconds.toFixed(1)} s)`, '', caseTable(cs), '']),
    ),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const res = JSON.parse(readFileSync('bench/noise-floors/results.json', 'utf8'));
  writeFileSync('bench/noise-floors/results.md', renderMarkdown(res));
}
