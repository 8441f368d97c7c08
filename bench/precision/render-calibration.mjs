// The calibration section of bench/precision/results.md, rendered from results.json's 'calibration' (what
// calibrate.mjs measured). writeCalibration(res) stores res there and replaces the section between its
// markers in results.md (the rest of the page is prose); `node bench/precision/render-calibration.mjs` re-renders it.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { e, r } from '../noise-floors/render.mjs';

const where = (m) => (m ? `${m.where}, ${m.request} step ${m.step}, ${m.label} (floor ${e(m.floor)}, ${m.source})` : '—');
const firstAt = (f) =>
  f ? `${f.stage}${f.chunk === undefined ? '' : `[${f.chunk}]`} (${f.verdict}, ${f.culprit}, ${f.request} step ${f.step})` : '—';
const scenarioCell = (s) =>
  `${s.file} ${s.error ? 'error' : `${s.verdict}${s.weights === 'diverge' ? ' (weights diverge)' : ''} ${s.seconds.toFixed(1)}`}`;

function modeRows(res) {
  const rows = Object.entries(res.modes).map(([m, x]) => [m, x]);
  rows.push(['selftest clean (bf16 vllm-triton-mla)', res.selftest.clean]);
  return rows;
}

export function renderCalibration(res) {
  const t = res.selftest;
  const perFault = new Map();
  for (const f of t.faults) {
    const x = perFault.get(f.fault) ?? {
      runs: 0,
      detected: 0,
      localized: 0,
      also: 0,
      attributed: 0,
      min: Infinity,
      max: 0,
      before: 0,
      enters: f.enters,
      nan: 0,
      how: new Set(),
    };
    x.runs++;
    x.detected += f.detected;
    x.localized += f.localized;
    x.also += f.localizedAlso;
    x.attributed += f.attributed;
    x.nan += f.nan;
    if (f.ratio !== null) {
      x.min = Math.min(x.min, f.ratio);
      x.max = Math.max(x.max, f.ratio);
    }
    x.before = Math.max(x.before, f.before);
    if (f.first?.verdict) x.how.add(f.first.verdict);
    perFault.set(f.fault, x);
  }
  const stages = [...new Set(Object.values(res.modes).flatMap((x) => Object.keys(x.perStage)))];
  const n = (k) => t.faults.filter((f) => f[k]).length;
  return [
    '## Calibration: noise floors in bf16, fp16 and with an fp8 cache, the k of the precision default `{floor: k}`',
    '',
    '```',
    `npm run build && ${res.command}`,
    '```',
    '',
    `${res.date.slice(0, 10)}, ${res.machine.cpus} × ${res.machine.cpu}, Node ${res.machine.node}, ${res.machine.device}; ` +
      `${res.seconds.toFixed(0)} s.`,
    'Each clean scenario (as bench/noise-floors/run.mjs selects them) loaded, its `precision` replaced by the mode, judged by',
    `\`{floor: ${res.k}}\`, the float64 reference and the cold path on. A record's floor: relErr(cold, float64), the cold path rounding`,
    "where FlashAttention prefill does in the same dtype (src/harness/compare/floors.ts). Ratio: a pair's relErr / the record's floor;",
    'per record the worst pair (mha↔mqa, each path vs float64). Activation records only (weight stages keep their exact rule).',
    `Skipped: ${res.skipped.join(', ')} (over 60 s each on 2 cores; capital-of-france.yaml is capital-of-france-bf16.yaml once ` +
      `its precision is replaced). Per-token fp8 scales only on models with kv_lora_rank % 128 = 0 (GLM-5, DeepSeek-V3).`,
    '',
    '### Clean runs per mode',
    '',
    '| mode | runs | records | worst / floor p50 | p99 | max | mha↔mqa / floor max | false positives at k | NaN records |',
    '|---|---|---|---|---|---|---|---|---|',
    ...modeRows(res).map(
      ([m, x]) =>
        `| ${m} | ${x.runs} | ${x.records} | ${r(x.worstRatio.p50)} | ${r(x.worstRatio.p99)} | ${r(x.worstRatio.max)} | ` +
        `${r(x.engineRatio.max)} | ${x.falsePositives.length} | ${x.nanRecords} |`,
    ),
    '',
    'Where the largest ratio sits:',
    '',
    ...modeRows(res).map(([m, x]) => `* ${m}: ${where(x.max)}`),
    '',
    ...modeRows(res).flatMap(([m, x]) =>
      x.falsePositives.map((f) => `* false positive, ${m}: ${f.where} ${f.verdict} at ${firstAt(f.first)}`),
    ),
    ...Object.entries(res.modes).flatMap(([m, x]) =>
      x.scenarios.filter((s) => s.error).map((s) => `* ${m}: ${s.file} did not run: ${s.error}`),
    ),
    '',
    `### Planted faults in ${t.mode} (selftest ${t.plan} plan, the precision default \`{floor: ${t.k}}\`)`,
    '',
    `${t.faults.length} fault runs: ${n('detected')} detected, ${n('localized')} first diverge at the stage the fault enters (` +
      `${n('localizedAlso')} there or at a stage it also enters), ${n('attributed')} blamed on the planted path.`,
    t.weakest
      ? `Weakest (smallest err/floor at the stage it enters, NaN faults aside): **${t.weakest.name}**, ${e(t.weakest.ratio)} ` +
        `floors at ${t.weakest.enters}.`
      : '',
    t.missed.length ? `Missed: ${t.missed.join(', ')}.` : 'No fault missed.',
    ...t.mislocalized.map(
      (f) => `* mislocalized: ${f.name}: first divergence ${firstAt(f.first)}, enters ${f.enters} (${e(f.ratio)} floors there)`,
    ),
    '',
    '| fault | runs | enters | detected | localized (entry / also) | attributed | err/floor at entry (min) | (max) | largest ' +
      'ratio before it | NaN there | first verdict |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...[...perFault.entries()].map(
      ([f, x]) =>
        `| ${f} | ${x.runs} | ${x.enters} | ${x.detected} | ${x.localized} / ${x.also} | ${x.attributed} | ${e(x.min)} | ` +
        `${e(x.max)} | ${r(x.before)} | ${x.nan ? `${x.nan}/${x.runs}` : ''} | ${[...x.how].join(', ')} |`,
    ),
    '',
    '### Largest worst-pair ratio per stage and mode',
    '',
    `| stage | ${Object.keys(res.modes).join(' | ')} |`,
    `|---|${Object.keys(res.modes)
      .map(() => '---')
      .join('|')}|`,
    ...stages.map(
      (s) =>
        `| ${s} | ${Object.values(res.modes)
          .map((x) => r(x.perStage[s]?.worstRatioMax))
          .join(' | ')} |`,
    ),
    '',
    '### Per scenario and mode (seconds; verdict)',
    '',
    ...Object.entries(res.modes).map(([m, x]) => `* ${m}: ${x.scenarios.map(scenarioCell).join(', ')}`),
    '',
  ].join('\n');
}

const JSON_PATH = 'bench/precision/results.json';
const MD_PATH = 'bench/precision/results.md';
const BEGIN = '<!-- calibration: rendered from results.json by bench/precision/render-calibration.mjs -->';
const END = '<!-- /calibration -->';

/** Stores res (or, without one, results.json's own) as results.json's 'calibration' and re-renders its section of results.md. */
export function writeCalibration(res) {
  const doc = JSON.parse(readFileSync(JSON_PATH, 'utf8'));
  if (res) {
    doc.calibration = res;
    writeFileSync(JSON_PATH, `${JSON.stringify(doc, null, 1)}\n`);
  }
  const md = readFileSync(MD_PATH, 'utf8');
  const [a, b] = [md.indexOf(BEGIN), md.indexOf(END)];
  if (a < 0 || b < a) throw new Error(`${MD_PATH} lacks the calibration markers`);
  writeFileSync(MD_PATH, `${md.slice(0, a + BEGIN.length)}\n${renderCalibration(doc.calibration)}${md.slice(b)}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--help'))
    console.log('Usage: node bench/precision/render-calibration.mjs  (re-renders the calibration section of bench/precision/results.md)');
  else writeCalibration();
}
