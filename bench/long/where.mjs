// Where a run's time and GPU memory go, piece by piece: runs a scenario on webgpu in-process (as `mla-diff run`
// does, through runScenario) with the device's createComputePipeline and createBuffer wrapped to count and time
// them, and at each piece's start prints the wall time since the run began, the pipelines compiled and buffers
// created so far (and their milliseconds), tfjs's pool (buffers in use and free) and the GPU's memory in use
// (nvidia-smi, where there is one), and the piece before's live set: the most bytes of tfjs buffers in use at once
// (acquired and not yet released: what had to exist together, whatever the pool kept or Dawn had yet to free) and
// the largest of those buffers at that moment. Then the report's seconds and trace.memory.
// Usage (device): node bench/long/where.mjs <scenario.yaml> [--json FILE]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { selectRuntime } from '../../dist/devices/select.js';
import { loadScenario } from '../../dist/harness/scenario/load.js';
import { runScenario } from '../../dist/harness/run/run-scenario.js';

const [file] = process.argv.slice(2);
const jsonAt = process.argv.indexOf('--json');
const t0 = performance.now();
const rt = await selectRuntime('webgpu');
const device = rt.tf.backend().device;
const counts = { pipelines: 0, pipelineMs: 0, buffers: 0, bufferMs: 0, bufferBytes: 0 };
const wrap = (name, count, ms, bytes) => {
  const f = device[name].bind(device);
  device[name] = (d) => {
    const t = performance.now();
    const r = f(d);
    counts[ms] += performance.now() - t;
    counts[count]++;
    if (bytes) counts[bytes] += d.size;
    return r;
  };
};
wrap('createComputePipeline', 'pipelines', 'pipelineMs');
wrap('createBuffer', 'buffers', 'bufferMs', 'bufferBytes');
const GiB = 2 ** 30;
// The live set: tfjs's buffer manager, wrapped over the pool trimmer's wrap (webgpu-pool.ts).
const bm = rt.tf.backend().bufferManager;
const live = new Map(); // size → buffers of that size in use
let used = 0;
let peak = { bytes: 0, top: '' };
const top = () =>
  [...live.entries()]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[0] * b[1] - a[0] * a[1])
    .slice(0, 6)
    .map(([size, n]) => `${n}×${(size / 2 ** 20).toFixed(0)} MiB`)
    .join(', ');
const acquire = bm.acquireBuffer.bind(bm);
bm.acquireBuffer = (size, usage, ...rest) => {
  used += size;
  live.set(size, (live.get(size) ?? 0) + 1);
  if (used > peak.bytes + 2 ** 28 || (used > peak.bytes && !peak.top)) peak = { bytes: used, top: top() };
  else if (used > peak.bytes) peak.bytes = used;
  return acquire(size, usage, ...rest);
};
const release = bm.releaseBuffer.bind(bm);
bm.releaseBuffer = (b, ...rest) => {
  used -= b.size;
  live.set(b.size, (live.get(b.size) ?? 1) - 1);
  return release(b, ...rest);
};
const smi = () => {
  const r = spawnSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits'], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) / 1024 : null;
};
const rows = [];
const mark = (what) => {
  const pool = rt.pool?.bytes() ?? { used: 0, free: 0 };
  const row = {
    what,
    s: (performance.now() - t0) / 1000,
    ...counts,
    poolUsedGiB: pool.used / GiB,
    poolFreeGiB: pool.free / GiB,
    gpuGiB: smi(),
    livePeakGiB: peak.bytes / GiB,
    livePeakTop: peak.top,
  };
  peak = { bytes: used, top: '' };
  rows.push(row);
  console.log(
    `${row.s.toFixed(2).padStart(8)} s ${what.padEnd(28)} pipelines ${counts.pipelines} (${(counts.pipelineMs / 1000).toFixed(2)} s) ` +
      `buffers ${counts.buffers} (${(counts.bufferMs / 1000).toFixed(2)} s, ${(counts.bufferBytes / GiB).toFixed(1)} GiB) ` +
      `pool ${row.poolUsedGiB.toFixed(1)} + ${row.poolFreeGiB.toFixed(1)} free GiB, GPU ${row.gpuGiB?.toFixed(1) ?? '-'} GiB; ` +
      `live before ${row.livePeakGiB.toFixed(1)} GiB (${row.livePeakTop})`,
  );
};
mark('device');
let last = '';
const progress = (e) => {
  const what = e.phase === 'pieces' ? `piece ${e.done}/${e.total}` : e.phase;
  if (what !== last) mark(what);
  last = what;
};
const s = loadScenario(file);
const r = await runScenario(s, { runtime: rt, toolVersion: 'where', progress });
mark('end');
const c = r.cases[0];
console.log(`verdict ${r.verdict}, outcome ${r.outcome}; seconds ${JSON.stringify(r.seconds)}; paths ${JSON.stringify(c.trace.seconds)}`);
console.log(`trace.memory ${JSON.stringify(c.trace.memory)}; first divergence ${JSON.stringify(c.comparison.firstDivergence ?? null)}`);
if (jsonAt > 0)
  writeFileSync(
    process.argv[jsonAt + 1],
    JSON.stringify(
      { scenario: file, rows, seconds: r.seconds, paths: c.trace.seconds, memory: c.trace.memory, verdict: r.verdict, outcome: r.outcome },
      null,
      1,
    ),
  );
