// The comparison's fused pair-diff kernel (webgpuDiff of mla-diff/devices, Runtime.diff on webgpu) against
// float64 sums over the same float32 pairs, on edge cases: NaN on either side, equal and unequal infinities,
// ties of the largest |a − b| (within a thread, across threads, across workgroups), values whose float32
// squares overflow or underflow, subnormals, sizes off the kernel's DF_GROUP, a multi-million-element pair
// (also with the dispatch spilling into y). Then (--time 1) the kernel against the tfjs ops it replaces
// on a [rows, 256] pair. Plain node on the built package. Usage: node test/e2e/checks/diff-check.mjs
// [--device webgpu] [--out DIR] [--time 1|0] [--rows N] [--reps 3]. Exit status 1 on a mismatch or a leaked tensor.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg, put, values } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { webgpuDiff, diffFromPartials, DF_GROUP: G } = dev;

const outDir = arg('out');
const reps = Number(arg('reps', '3'));
const TOL = 1e-6;

const rt = await api.selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);
if (!rt.diff) {
  console.log(`FAIL: ${rt.device.name} offers no diff kernel`);
  process.exit(1);
}

const near = (a, seed, amp) => Float32Array.from(a, (v, i) => v + values(1, seed + i, amp)[0]);

/** The oracle: float64 sums over the finite pairs, float32 |a − b| (as the device subtracts), first occurrence. */
function oracle(a, b) {
  const s = { dd: 0, aa: 0, bb: 0, ab: 0, maxAbs: 0, at: 0, nanA: 0, nanB: 0, inf: 0 };
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    if (x !== x || y !== y) {
      if (x !== x) s.nanA++;
      if (y !== y) s.nanB++;
    } else if (x - x !== 0 || y - y !== 0) {
      if (x !== y) s.inf++;
    } else {
      s.dd += (x - y) ** 2;
      s.aa += x * x;
      s.bb += y * y;
      s.ab += x * y;
      const d = Math.abs(Math.fround(x - y));
      if (d > s.maxAbs) [s.maxAbs, s.at] = [d, i];
    }
  }
  return s;
}

function compare(got, want) {
  const bad = [];
  const scale = want.aa + want.bb;
  for (const k of ['dd', 'aa', 'bb', 'ab']) {
    // dd relative to itself (it is what relErr reads), the others to the norms
    const e =
      k === 'dd' ? Math.abs(got.dd - want.dd) / Math.max(want.dd, 1e-300 * scale) : Math.abs(got[k] - want[k]) / Math.max(scale, 1e-300);
    if (!(e <= TOL) && !(got[k] === want[k])) bad.push(`${k} ${got[k]} vs ${want[k]}`);
  }
  for (const k of ['maxAbs', 'at', 'nanA', 'nanB', 'inf']) if (got[k] !== want[k]) bad.push(`${k} ${got[k]} vs ${want[k]}`);
  return bad;
}

const big = 3_000_000;
const r1 = values(37 * 129, 1);
const CASES = [
  ['random, near [37,129]', r1, near(r1, 100, 1e-4)],
  ['equal [4096]', values(4096, 2), values(4096, 2)],
  [
    'NaN either side, ±Inf equal and not, −0 [5,7,11]',
    put(values(385, 3), [
      [0, NaN],
      [3, Infinity],
      [4, -Infinity],
      [9, -0],
      [200, NaN],
      [384, Infinity],
    ]),
    put(values(385, 4), [
      [1, NaN],
      [3, Infinity],
      [4, Infinity],
      [9, 0],
      [200, NaN],
      [383, -Infinity],
    ]),
  ],
  [
    'ties: thread 3, 44, 300 (same thread as 44) [4096]',
    fill(4096, 1),
    put(fill(4096, 1), [
      [300, -4],
      [44, 6],
      [3, -4],
      [4000, 6],
    ]),
  ],
  [
    `ties across workgroups, first at ${G + 4904} [3,${G + 1}]`,
    fill(3 * (G + 1), 0),
    put(fill(3 * (G + 1), 0), [
      [G + 7904, 7],
      [G + 4904, -7],
      [2 * G + 9, 7],
    ]),
  ],
  ['1 element', Float32Array.of(-2.5), Float32Array.of(1)],
  ['1 element NaN', Float32Array.of(NaN), Float32Array.of(1)],
  [`all NaN and Inf [${G + 4}]`, put(fill(G + 4, NaN), [[7, Infinity]]), put(fill(G + 4, Infinity), [[7, Infinity]])],
  [`${G - 1} (one short of a group)`, values(G - 1, 5, 3), values(G - 1, 6, 3)],
  [`${2 * G + 1} (two groups + 1)`, values(2 * G + 1, 7, 3), values(2 * G + 1, 8, 3)],
  ['large: squares overflow float32 [999]', put(values(999, 9, 3e37), [[500, 3.4e38]]), put(values(999, 10, 3e37), [[500, -3.4e38]])],
  ['small: squares underflow float32 [2,3,1000]', values(6000, 11, 1e-30), values(6000, 12, 1e-30)],
  ['subnormal [257]', values(257, 13, 1e-39), values(257, 14, 1e-39)],
  [
    `multi-million [${big / 1000},10,100] + NaN/Inf`,
    put(values(big, 15, 2), [
      [17, NaN],
      [2_500_001, Infinity],
    ]),
    put(near(values(big, 15, 2), 7, 1e-3), [[2_999_999, 9]]),
  ],
];
function fill(n, v) {
  return new Float32Array(n).fill(v);
}

const checks = [];
const spill = webgpuDiff(tf, 7); // ⌈3M / DF_GROUP⌉ groups → dispatch [7, ⌈groups/7⌉]
for (const [name, a, b] of CASES) {
  const want = oracle(a, b);
  const [ta, tb] = [tf.tensor1d(a), tf.tensor1d(b)];
  const before = tf.memory().numTensors;
  for (const [via, k] of [['kernel', rt.diff], ...(a.length > 100_000 ? [['kernel, dispatch y', spill]] : [])]) {
    const p = k.launch(ta, tb);
    const got = diffFromPartials(await p.data(), k.groupSize, a.length);
    p.dispose();
    const bad = compare(got, want);
    const leaked = tf.memory().numTensors - before;
    const ok = bad.length === 0 && leaked === 0;
    checks.push({ name, via, size: a.length, bad, leakedTensors: leaked, ok });
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${via.padEnd(19)} ${name.padEnd(56)} ${bad.join('; ')}${leaked ? ` leaked ${leaked}` : ''}`);
  }
  tf.dispose([ta, tb]);
}

async function timeIt(fn) {
  const times = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return [...times.slice(1)].sort((x, y) => x - y)[Math.floor(reps / 2)];
}

const timings = [];
if (arg('time', '1') !== '0') {
  const cols = 256;
  const rows = Math.min(Number(arg('rows', String(8192 * 64))), Math.floor(rt.maxTensorBytes / 4 / cols));
  const a = tf.randomNormal([rows, cols], 0, 1, 'float32', 3);
  const b = tf.randomNormal([rows, cols], 0, 1, 'float32', 4);
  const kernelMs = await timeIt(async () => {
    const p = rt.diff.launch(a, b);
    await p.data();
    p.dispose();
  });
  const opsMs = await timeIt(async () => {
    const r = tf.tidy(() =>
      tf.stack([tf.sum(tf.square(tf.sub(a, b)), 1), tf.sum(tf.square(a), 1), tf.sum(tf.mul(a, b), 1), tf.max(tf.abs(tf.sub(a, b)), 1)]),
    );
    await r.data();
    r.dispose();
  });
  tf.dispose([a, b]);
  timings.push({ shape: [rows, cols], kernelMs, opsMs });
  console.log(
    `time [${rows}, ${cols}]: kernel ${kernelMs.toFixed(1)} ms with its read-back; ` +
      `four of the tfjs reductions it replaces ${opsMs.toFixed(1)} ms`,
  );
}

const passed = checks.every((c) => c.ok);
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'diff-check.json'), JSON.stringify({ device: rt.device, tolerance: TOL, passed, checks, timings }, null, 2));
}
console.log(
  passed ? `\nall ${checks.length} checks pass (sums within ${TOL}, the rest exact), no leak` : '\nFAIL: a check mismatches or leaks',
);
process.exit(passed ? 0 : 1);
