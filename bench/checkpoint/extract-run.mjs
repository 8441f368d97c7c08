// `mla-diff extract` on GLM-5-sized multi-shard GGUFs: (1) a 78-layer Q4_K file written by our writer in 8 shards
// (write-glm5.mjs: real quantized bytes in every tensor), whose extracted layers llama.cpp then loads and runs;
// (2) GLM-5's real size, 416 GB in 10 sparse shards with the routed experts (sparse-glm5.mjs). Layers 0, 40, 77 are
// extracted by the built CLI in fresh processes (page cache dropped first when allowed); every RandomAccessFile.read
// is counted (count-reads.cjs). Stores its data under 'extract' in bench/checkpoint/results.json and re-renders
// its table in bench/checkpoint/results.md (results.mjs).
// Usage: npm run build && node bench/checkpoint/extract-run.mjs [--dir /tmp/mla-bench] [--rounds 3]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/checkpoint/extract-run.mjs [--dir /tmp/mla-bench] [--rounds 3]');
  process.exit(0);
}
const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const dir = arg('dir', '/tmp/mla-bench');
const rounds = Number(arg('rounds', '3'));
mkdirSync(dir, { recursive: true });
const node = (args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - t) / 1000 };
};
const dropCaches = () => spawnSync('sh', ['-c', 'sync; echo 3 > /proc/sys/vm/drop_caches'], { stdio: 'ignore' }).status === 0;

function extract(file, layer, out) {
  const cold = dropCaches();
  const r = node([
    '-r',
    './bench/checkpoint/count-reads.cjs',
    CLI,
    'extract',
    file,
    '--layer',
    String(layer),
    '-o',
    out,
    '--force',
    '--format',
    'json',
  ]);
  const j = JSON.parse(r.stdout);
  const reads = JSON.parse(
    r.stderr
      .split('\n')
      .find((l) => l.startsWith('mla-diff-bench-reads '))
      .slice(21),
  );
  return {
    layer,
    cold,
    processSeconds: r.seconds,
    seconds: j.seconds,
    bytesRead: reads.bytes,
    reads: reads.reads,
    maxRssMiB: reads.maxRssMiB,
    bytesWritten: j.bytesWritten,
    kept: j.kept.map((k) => `${k.name.replace('blk.0.', '')}:${k.type}`),
    filled: j.filled,
    notCopied: j.notCopied.length,
  };
}

/** llama.cpp (the built child.js) loads the extracted model and decodes 8 + 1 tokens of embeddings. */
function engine(model) {
  const { findLibDir } = require('mla-diff/engines');
  const d = join(dir, 'engine');
  mkdirSync(join(d, 'out'), { recursive: true });
  const H = 6144;
  writeFileSync(join(d, 'e.bin'), Buffer.from(Float32Array.from({ length: 9 * H }, (_, i) => Math.sin(i * 0.37)).buffer));
  const job = {
    format: 'mla-diff/llama-cpp-job',
    version: 1,
    libDir: findLibDir('cpu'),
    model,
    embeddings: join(d, 'e.bin'),
    hidden: H,
    params: { flashAttn: false, cacheType: 'f32', threads: os.cpus().length, gpuLayers: 0 },
    nCtx: 256,
    nBatch: 8,
    nSeq: 1,
    out: join(d, 'out'),
    pieces: [
      { step: 0, request: 'a', seq: 0, kind: 'prefill', positions: [0, 1, 2, 3, 4, 5, 6, 7], row: 0 },
      { step: 1, request: 'a', seq: 0, kind: 'decode', positions: [8], row: 8 },
    ],
  };
  writeFileSync(join(d, 'job.json'), JSON.stringify(job));
  const r = node([require('mla-diff/engines').ENGINE_CHILD, join(d, 'job.json')]);
  const res = JSON.parse(readFileSync(join(d, 'out', 'nodes.json'), 'utf8'));
  const kqvOut = res.nodes.filter((n) => n.name === 'kqv_out-0').length;
  return {
    model,
    processSeconds: r.seconds,
    loadSeconds: res.loadSeconds,
    decodeSeconds: res.decodeSeconds,
    nodes: res.nodes.length,
    kqvOut,
  };
}

const cases = [];
const real = JSON.parse(
  node(['bench/checkpoint/write-glm5.mjs', join(dir, 'glm5-q4k.gguf'), 'Q4_K', '78', '8'])
    .stdout.trim()
    .split('\n')
    .pop(),
);
console.log(`wrote ${real.files.length} shards in ${real.seconds.toFixed(1)} s`);
const sparse = JSON.parse(
  node(['bench/checkpoint/sparse-glm5.mjs', join(dir, 'glm5-sparse.gguf'), '10'])
    .stdout.trim()
    .split('\n')
    .pop(),
);
const size = (files) => files.reduce((a, f) => a + statSync(f).size, 0);
for (const [what, made] of [
  ['78 layers, Q4_K, 8 shards (written)', real],
  ['416 GB, 10 sparse shards (with experts)', sparse],
]) {
  const rows = [];
  for (let i = 0; i < rounds; i++)
    for (const layer of [0, 40, 77]) rows.push({ round: i + 1, ...extract(made.file, layer, join(dir, `l${layer}.gguf`)) });
  const c = { what, files: made.files.length, fileBytes: made.fileBytes ?? size(made.files), rows };
  if (made === real) c.engine = [0, 77].map((l) => (extract(made.file, l, join(dir, `l${l}.gguf`)), engine(join(dir, `l${l}.gguf`))));
  cases.push(c);
  for (const r of rows)
    console.log(what, `layer ${r.layer}: ${r.processSeconds.toFixed(2)} s, ${(r.bytesRead / 2 ** 20).toFixed(1)} MiB read`);
  if (c.engine) console.log(c.engine);
}
for (const f of [...real.files, ...sparse.files]) rmSync(f);
for (const l of [0, 40, 77]) rmSync(join(dir, `l${l}.gguf`), { force: true });
const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version };
console.log(record('extract', { command: 'node bench/checkpoint/extract-run.mjs', created: new Date().toISOString(), machine, cases }));
