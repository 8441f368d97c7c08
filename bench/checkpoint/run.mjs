// Checkpoint load bench: GLM-5-sized GGUF files written by our writer (Q8_0 and Q4_K; 1 layer and
// 78 layers, the full token_embd and a GLM-5-sized vocabulary in the header), then one layer
// loaded in a fresh process per measurement (page cache dropped first when allowed): time, peak
// RSS and bytes read must follow the layer, not the file. Stores its data under 'layer-load' in
// bench/checkpoint/results.json and re-renders its table in bench/checkpoint/results.md (results.mjs).
// Usage: npm run build && node bench/checkpoint/run.mjs [--dir /tmp/mla-bench] [--rounds 3]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/checkpoint/run.mjs [--dir /tmp/mla-bench] [--rounds 3]');
  process.exit(0);
}

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const dir = arg('dir', '/tmp/mla-bench');
const rounds = Number(arg('rounds', '3'));
mkdirSync(dir, { recursive: true });
const node = (args) => {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return r.stdout.trim().split('\n').pop();
};
const dropCaches = () => spawnSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' }).status === 0;

const rows = [];
for (const type of ['Q8_0', 'Q4_K']) {
  for (const layers of [1, 78]) {
    const file = join(dir, `glm5-${type.toLowerCase()}-L${layers}.gguf`);
    const w = JSON.parse(node(['bench/checkpoint/write-glm5.mjs', file, type, String(layers)]));
    const fileBytes = statSync(file).size;
    console.log(`wrote ${file}: ${(fileBytes / 2 ** 30).toFixed(2)} GiB in ${w.seconds.toFixed(1)} s`);
    for (const layer of layers === 1 ? [0] : [0, 77]) {
      for (let i = 0; i < rounds; i++) {
        const cold = dropCaches();
        const m = JSON.parse(node(['bench/checkpoint/load-one.mjs', file, String(layer)]));
        const t = performance.now();
        node([CLI, 'inspect', file, '--format', 'json']);
        const inspectSeconds = (performance.now() - t) / 1000;
        rows.push({ type, layers, layer, round: i + 1, cold, fileBytes, writeSeconds: w.seconds, ...m, inspectSeconds });
        console.log(
          `  layer ${layer} round ${i + 1}${cold ? ' (cold cache)' : ''}: load ${m.loadSeconds.toFixed(2)} s (header ` +
            `${m.openSeconds.toFixed(2)} s), ` +
            `${(m.bytesRead / 2 ** 20).toFixed(0)} MiB read, peak RSS ${m.maxRssMiB.toFixed(0)} MiB; inspect ` +
            `${inspectSeconds.toFixed(2)} s`,
        );
      }
    }
    rmSync(file);
  }
}
const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version };
console.log(record('layer-load', { command: 'node bench/checkpoint/run.mjs', created: new Date().toISOString(), machine, rows }));
