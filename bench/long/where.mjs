// Where a run's time and GPU memory go, piece by piece: runs a scenario on webgpu in-process (as `mla-diff run`
// does, through runScenario) with the device's createComputePipeline and createBuffer wrapped to count and time
// them, and at each piece's start prints the wall time since the run began, the pipelines compiled and buffers
// created so far (and their milliseconds), tfjs's pool (buffers in use and free) and the GPU's memory in use
// (nvidia-smi, where there is one). Then the report's seconds and trace.memory.
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
  };
  rows.push(row);
  console.log(
    `${row.s.toFixed(2).padStart(8)} s ${what.padEnd(28)} pipelines ${counts.pipelines} (${(counts.pipelineMs / 1000).toFixed(2)} s) ` +
      `buffers ${counts.buffers} (${(counts.bufferMs / 1000).toFixed(2)} s, ${(counts.bufferBytes / GiB).toFixed(1)} GiB) ` +
      `pool ${row.poolUsedGiB.toFixed(1)} + ${row.poolFreeGiB.toFixed(1)} free GiB, GPU ${row.gpuGiB?.toFixed(1) ?? '-'} GiB`,
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
