#!/usr/bin/env node
// Worst rel err per stage of one pair of paths in an mla-diff run JSON (`--format json`), and, given
// bench/precision/torch-pair.py's JSON, its ratio to what PyTorch shows between its two paths.
//   node bench/precision/trace-pair.mjs RUN.json [--pair mha,mqa] [--torch PAIR.json] [--out FILE]
// Reads cases[].trace.diffs ({a, b, stage, step, request, chunk?, relErr}; docs/trace-format.md),
// either order of the pair, every case, skipping unmeasured records (relErr null) and norm-only ones.
// With --torch: per stage both worst values and mla-diff / PyTorch; `within2` when 1/2 ≤ ratio ≤ 2
// (issue 7: mla-diff's bf16 agreement within a factor of 2 of PyTorch's on the same weights).
import { readFileSync, writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const [x, y] = (flag('--pair') ?? 'mha,mqa').split(',');
const torchFile = flag('--torch');
const outFile = flag('--out');
if (args.length !== 1) {
  console.error('usage: trace-pair.mjs RUN.json [--pair mha,mqa] [--torch PAIR.json] [--out FILE]');
  process.exit(2);
}

const run = JSON.parse(readFileSync(args[0], 'utf8'));
const stages = {}; // stage -> { worst, at }, in the order the run recorded them
for (const c of run.cases) {
  for (const d of c.trace.diffs) {
    if (!((d.a === x && d.b === y) || (d.a === y && d.b === x)) || d.relErr === null || d.normOnly) continue;
    const at = `${c.trace.name} ${d.step}/${d.request}/${d.stage}${d.chunk === undefined ? '' : `/${d.chunk}`}`;
    if (!(d.stage in stages) || d.relErr > stages[d.stage].worst) stages[d.stage] = { worst: d.relErr, at };
  }
}
const torch = torchFile ? JSON.parse(readFileSync(torchFile, 'utf8')).stages : undefined;
const rows = Object.entries(stages).map(([stage, v]) => {
  const t = torch?.[stage]?.worst;
  const ratio = typeof t === 'number' && t > 0 ? v.worst / t : null;
  return {
    stage,
    worst: v.worst,
    at: v.at,
    ...(torch ? { torch: t ?? null, ratio, within2: ratio === null ? null : ratio >= 0.5 && ratio <= 2 } : {}),
  };
});
const fmt = (v) => (typeof v === 'number' ? v.toExponential(3) : String(v));
console.log(
  `rel(${x}, ${y}) per stage, worst record, in ${args[0]} (${run.device?.description ?? run.device?.backend ?? '?'})` +
    `${torch ? `; PyTorch: ${torchFile}` : ''}`,
);
const torchColumns = (r) =>
  `  torch ${fmt(r.torch)}  ratio ${r.ratio === null ? '—' : r.ratio.toFixed(2)}${r.within2 === false ? '  OUTSIDE 2x' : ''}`;
for (const r of rows) console.log(`  ${r.stage.padEnd(16)} ${fmt(r.worst)}${torch ? torchColumns(r) : ''}  (${r.at})`);
if (outFile) writeFileSync(outFile, `${JSON.stringify({ run: args[0], pair: [x, y], torch: torchFile ?? null, stages: rows }, null, 1)}\n`);
