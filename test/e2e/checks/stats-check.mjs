// The fused statistics kernel (webgpuStats of mla-diff/devices, Runtime.stats on webgpu) against
// hostStats, the exact float64 oracle, on the same float32 values: random tensors with NaN, ±Inf,
// ties of the largest |x| (within a thread, across threads, across workgroups), −0, values whose
// float32 squares overflow or underflow, empty and 1-element tensors, sizes off the kernel's
// STATS_GROUP-element group, a multi-million-element tensor (also with the dispatch spilling into y), each through the
// recorder's launch/settle path. Then a TensorRecorder with the kernel against one without (the
// generic deviceStats), taps and checks read back together, and with taps launched in batches of
// the kernel's maxBatch. Then (--time 1) deviceStats vs the
// kernel on a [rows, 256] tensor (default rows 8192·64, capped by the device's binding limit).
// Plain node on the built package (mla-diff, mla-diff/devices). Usage: node test/e2e/checks/stats-check.mjs [--device webgpu] [--out DIR]
//   [--time 1|0] [--rows N] [--reps 3]. Exit status 1 on a mismatch or a leaked tensor.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg, put, values } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { hostStats, deviceStats, launchStats, settleStats, webgpuStats, STATS_GROUP: G } = dev;
const { TensorRecorder } = api;
const STAGE_LAYOUT = (stage) => api.STAGES[stage].layout;

const outDir = arg('out');
const reps = Number(arg('reps', '3'));
const TOL = 1e-6;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);
if (!rt.stats) {
  console.log(`FAIL: ${rt.device.name} offers no stats kernel`);
  process.exit(1);
}

const fill = (n, v) => new Float32Array(n).fill(v);

/** Mismatches of got against the oracle want: l2/rms relative, mean against rms, the rest exact. */
function compare(got, want) {
  const bad = [];
  const rel = (g, w) => (w === 0 ? Math.abs(g) : Math.abs(g - w) / Math.abs(w));
  const err = {
    l2: rel(got.l2, want.l2),
    rms: rel(got.rms, want.rms),
    mean: want.rms ? Math.abs(got.mean - want.mean) / want.rms : Math.abs(got.mean),
  };
  for (const [k, e] of Object.entries(err)) if (!(e <= TOL)) bad.push(`${k} ${got[k]} vs ${want[k]}`);
  for (const k of ['maxAbs', 'nanCount', 'infCount', 'size', 'layout', 'dtype'])
    if (got[k] !== want[k]) bad.push(`${k} ${got[k]} vs ${want[k]}`);
  for (const k of ['maxAbsAt', 'shape']) if (JSON.stringify(got[k]) !== JSON.stringify(want[k])) bad.push(`${k} ${got[k]} vs ${want[k]}`);
  return { err, bad };
}

const big = 3_000_000;
const CASES = [
  ['random [37,129]', [37, 129], values(37 * 129, 1)],
  [
    'NaN, ±Inf, −0 [5,7,11]',
    [5, 7, 11],
    put(values(385, 2), [
      [0, NaN],
      [3, Infinity],
      [4, -Infinity],
      [9, -0],
      [200, NaN],
      [384, -Infinity],
    ]),
  ],
  [
    'ties: thread 3, 44, 300 (same thread as 44) [4096]',
    [4096],
    put(values(4096, 3), [
      [300, -5],
      [44, 5],
      [3, -5],
      [4000, 5],
    ]),
  ],
  [
    `ties across workgroups, first at ${G + 4904} [3,${G + 1}]`,
    [3, G + 1],
    put(values(3 * (G + 1), 4), [
      [G + 7904, 7],
      [G + 4904, -7],
      [(G + 1) * 2 + 5, 7],
    ]),
  ],
  ['empty [0,5]', [0, 5], new Float32Array(0)],
  ['1 element', [1], Float32Array.of(-2.5)],
  ['1 element NaN', [1, 1], Float32Array.of(NaN)],
  [
    `all NaN and Inf [${G + 4}]`,
    [G + 4],
    put(fill(G + 4, NaN), [
      [7, Infinity],
      [G + 3, -Infinity],
    ]),
  ],
  [`zeros and −0 [${G + 1}]`, [G + 1], put(fill(G + 1, -0), [[2, 0]])],
  [`${G - 1} (one short of a group)`, [G - 1], values(G - 1, 5, 3)],
  [`${G} (one group)`, [G], values(G, 6, 3)],
  [`${2 * G + 1} (two groups + 1)`, [2 * G + 1], values(2 * G + 1, 7, 3)],
  [
    'large: squares overflow float32 [999]',
    [999],
    put(values(999, 8, 3e37), [
      [500, 3.4e38],
      [501, -3.4e38],
    ]),
  ],
  ['small: squares underflow float32 [2,3,1000]', [2, 3, 1000], values(6000, 9, 1e-30)],
  ['subnormal largest |x| [257]', [257], put(values(257, 10, 1e-39), [[100, -1.1e-38]])],
  ['mixed scales, mean ≈ 0 [6000]', [6000], Float32Array.from(values(6000, 11), (x, i) => (i % 2 ? -1 : 1) * 1e4 + x)],
  [
    `multi-million [${big / 1000},10,100] + NaN/Inf`,
    [big / 1000, 10, 100],
    put(values(big, 12, 2), [
      [17, NaN],
      [2_500_001, Infinity],
      [2_999_999, 9],
      [123_456, -9],
    ]),
  ],
];

const checks = [];
const spill = webgpuStats(tf, 7); // ceil(3M / STATS_GROUP) groups of the 3M tensor → dispatch [7, ⌈groups/7⌉]
for (const [name, shape, data] of CASES) {
  const want = hostStats(data, shape, 'float32', 'l a y');
  const x = tf.tensor(data, shape, 'float32');
  const before = tf.memory().numTensors;
  const kernels = [['kernel', rt.stats], ...(data.length > 100_000 ? [['kernel, dispatch y', spill]] : []), ['deviceStats', undefined]];
  for (const [via, k] of kernels) {
    const [got] = await settleStats(tf, [launchStats(tf, x, 'l a y', () => null, k)]);
    const { err, bad } = compare(got, want);
    const leaked = tf.memory().numTensors - before;
    // The generic deviceStats is shown, not judged: float32 row sums, webgpu argMax's tie order.
    const informational = via === 'deviceStats';
    const ok = informational || (bad.length === 0 && leaked === 0);
    checks.push({ name, via, shape, err, bad, leakedTensors: leaked, ok, ...(informational ? { informational } : {}) });
    console.log(
      `${informational ? (bad.length ? 'info' : 'same') : ok ? 'ok  ' : 'FAIL'} ${via.padEnd(17)} ${name.padEnd(52)} ` +
        `l2 ${err.l2.toExponential(1)} mean ${err.mean.toExponential(1)} ${bad.join('; ')}${leaked ? ` leaked ${leaked}` : ''}`,
    );
  }
  x.dispose();
}

// The recorder: taps and checks launched together, records in pipeline order, same as without the kernel.
{
  const taps = [
    ['q_c', values(3000, 20), [3, 1000]],
    ['lse', put(values(600, 21), [[5, NaN]]), [4, 150]],
    ['kv_c', values(5000, 22), [5, 1000]],
  ];
  const want = ['q_c', 'kv_c', 'lse'].map((st) => {
    const [, v, shape] = taps.find((t) => t[0] === st);
    return hostStats(v, shape, 'float32', STAGE_LAYOUT(st));
  });
  const before = tf.memory().numTensors;
  const run = async (stats) => {
    const rec = new TensorRecorder(tf, { stats, retain: new Set(['kv_c']) });
    tf.tidy(() => {
      for (const [stage, v, shape] of taps) {
        if (stage === 'lse') rec.check('lse', 'lse_bounds', tf.scalar(4, 'int32')); // made before its tap
        rec.tap(stage, tf.tensor(v, shape));
      }
    });
    const r = await rec.finish('mha');
    for (const c of r.captured.values()) c.tensor.dispose();
    return r.trace.stages;
  };
  const [fused, generic] = [await run(rt.stats), await run(undefined)];
  const leaked = tf.memory().numTensors - before;
  const bad = fused.flatMap((s, i) => [
    ...compare(s.stats, want[i]).bad.map((b) => `${s.stage}: ${b}`),
    ...(JSON.stringify([s.stage, s.checks]) === JSON.stringify([generic[i].stage, generic[i].checks]) ? [] : [`${s.stage} record`]),
  ]);
  const ok = bad.length === 0 && fused.length === 3 && fused[2].stage === 'lse' && fused[2].checks?.[0]?.violations === 4 && leaked === 0;
  checks.push({ name: 'TensorRecorder with the kernel = without', via: 'recorder', bad, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} recorder: ${fused.map((s) => s.stage).join(', ')} ${bad.join('; ')}${leaked ? ` leaked ${leaked}` : ''}`,
  );
}

// Batched launches (launchMany, maxBatch tensors per dispatch): more taps than two full batches, of
// sizes on and off the group edges, NaN/±Inf, the same largest |x| in two tensors of one batch (each
// finds its own); each record equals hostStats and the generic recorder's, in one launch per batch.
{
  const stages = [
    'hidden_in',
    'q_c_raw',
    'kv_lora',
    'q_c',
    'q_full_prerope',
    'q_nope',
    'q_pe_raw',
    'kv_c',
    'k_pe_raw',
    'kv_c_normed',
    'q_pe',
    'k_pe',
    'q',
    'kv_cache',
    'kv_nope',
    'k_nope',
  ];
  const sizes = [G - 1, 7, G, 2 * G + 1, 300, 1, G + 1, 4097, 5, 3 * G, 64, 2, 999, G - 3, 10, 1234];
  const taps = stages.map((st, i) => [
    st,
    put(
      values(sizes[i], 40 + i),
      i === 3
        ? [
            [5, NaN],
            [9, -Infinity],
          ]
        : i === 4 || i === 5
          ? [[2, 9.5]]
          : [],
    ),
    [sizes[i]],
  ]);
  const want = taps.map(([st, v, shape]) => hostStats(v, shape, 'float32', STAGE_LAYOUT(st)));
  let launches = 0;
  const counted = rt.stats && {
    ...rt.stats,
    launchMany: (xs) => {
      launches++;
      return rt.stats.launchMany(xs);
    },
  };
  const before = tf.memory().numTensors;
  const run = async (stats) => {
    const rec = new TensorRecorder(tf, { stats, retain: new Set(['q_c']) });
    tf.tidy(() => {
      for (const [stage, v, shape] of taps) rec.tap(stage, tf.tensor(v, shape));
    });
    const r = await rec.finish('mqa');
    for (const c of r.captured.values()) c.tensor.dispose();
    return r.trace.stages;
  };
  const [batched, generic] = [await run(counted), await run(undefined)];
  const leaked = tf.memory().numTensors - before;
  const bad = batched.flatMap((s, i) => [
    ...compare(s.stats, want[i]).bad.map((b) => `${s.stage}: ${b}`),
    ...(s.stage === generic[i].stage ? [] : [`${s.stage} order`]),
  ]);
  const batches = Math.ceil(taps.length / (rt.stats?.maxBatch ?? 1));
  const ok = bad.length === 0 && batched.length === taps.length && launches === batches && leaked === 0;
  checks.push({
    name: `TensorRecorder, ${taps.length} taps in launches of ${rt.stats?.maxBatch}`,
    via: 'recorder, batched',
    bad,
    launches,
    leakedTensors: leaked,
    ok,
  });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} recorder, batched: ${taps.length} taps in ${launches} launches (want ${batches}) ` +
      `${bad.join('; ')}${leaked ? ` leaked ${leaked}` : ''}`,
  );
}

/** Median ms of launching and reading one tensor's stats (the first run warms up). */
async function timeIt(fn) {
  const times = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return [...times.slice(1)].sort((a, b) => a - b)[Math.floor(reps / 2)];
}

const timings = [];
if (arg('time', '1') !== '0') {
  const cols = 256;
  const rows = Math.min(Number(arg('rows', String(8192 * 64))), Math.floor(rt.maxTensorBytes / 4 / cols));
  const x = tf.randomNormal([rows, cols], 0, 1, 'float32', 3);
  const kernelMs = await timeIt(() => settleStats(tf, [launchStats(tf, x, 'r c', () => null, rt.stats)]));
  const genericMs = await timeIt(() => deviceStats(tf, x, 'r c'));
  // The kernel alone: 10 launches back to back, one read of the last partials (no host settle).
  const gpuMs =
    (await timeIt(async () => {
      const ps = Array.from({ length: 10 }, () => rt.stats.launch(x));
      await tf.slice(ps[9], [0], [1]).data();
      tf.dispose(ps);
    })) / 10;
  const gbs = (x.size * 4) / (gpuMs / 1000) / 1e9;
  x.dispose();
  timings.push({ shape: [rows, cols], kernelMs, deviceStatsMs: genericMs, gpuMs, gbPerS: gbs });
  console.log(
    `time [${rows}, ${cols}]: kernel ${kernelMs.toFixed(1)} ms with its read-back and settle, ` +
      `${gpuMs.toFixed(2)} ms per launch alone (${gbs.toFixed(0)} GB/s); deviceStats ${genericMs.toFixed(1)} ms (median of ${reps})`,
  );
}

const passed = checks.every((c) => c.ok);
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'stats-check.json'), JSON.stringify({ device: rt.device, tolerance: TOL, passed, checks, timings }, null, 2));
}
console.log(
  passed
    ? `\nall ${checks.length} checks pass (l2/rms/mean within ${TOL}, the rest exact), no leak`
    : '\nFAIL: a check mismatches or leaks',
);
process.exit(passed ? 0 : 1);
