// The 416 GB case: a GLM-5-shaped GGUF whose tensor data is a hole (bench/checkpoint/sparse-glm5.mjs),
// `mla-diff inspect` on it and layers 0, 40, 77 loaded in fresh processes (page cache dropped first
// when allowed). Stores its data under 'sparse-416gb' in bench/checkpoint/results.json and re-renders its
// table in bench/checkpoint/results.md (results.mjs). Usage: node bench/checkpoint/sparse-run.mjs [--rounds 3]
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/checkpoint/sparse-run.mjs [--rounds 3]');
  process.exit(0);
}

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const rounds = Number(arg('rounds', '3'));
const file = '/tmp/mla-diff-sparse-glm5.gguf';
const node = (args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return { out: r.stdout.trim().split('\n').pop(), seconds: (performance.now() - t) / 1000 };
};
const dropCaches = () => spawnSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' }).status === 0;
const made = JSON.parse(node(['bench/checkpoint/sparse-glm5.mjs', file]).out);
const rows = [];
for (let i = 0; i < rounds; i++) {
  const cold = dropCaches();
  rows.push({ what: 'inspect', round: i + 1, cold, seconds: node([CLI, 'inspect', file]).seconds });
  for (const layer of [0, 40, 77]) {
    const coldL = dropCaches();
    rows.push({
      what: `load layer ${layer}`,
      round: i + 1,
      cold: coldL,
      ...JSON.parse(node(['bench/checkpoint/load-one.mjs', file, String(layer)]).out),
    });
  }
}
rmSync(file);
const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version };
const table = record('sparse-416gb', {
  command: 'node bench/checkpoint/sparse-run.mjs',
  created: new Date().toISOString(),
  machine,
  file: made,
  rows,
});
for (const r of rows)
  console.log(
    r.what,
    r.round,
    r.seconds?.toFixed(2) ??
      `${r.loadSeconds.toFixed(2)} s, ${(r.bytesRead / 2 ** 20).toFixed(0)} MiB read, RSS ${r.maxRssMiB.toFixed(0)} MiB`,
  );
console.log(table);
