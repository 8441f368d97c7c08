// The one-program LSE bounds check (src/devices/kernels/lse-bounds.ts) against the tfjs ops it replaces
// (attention.ts lseBoundViolations without a kernel) on the same webgpu backend: [N,T] LSEs with
// [1,T] causal key counts (MHA, cold), [T,N] with [T,1] (MQA), a scalar count (a context chunk) and
// keys as large as the LSE; values inside, on and past both bounds, NaN and ±inf in lse and max, a
// zero key count (upper bound −inf), a narrow-dtype relative slack, 1 to 600 000 elements (one workgroup to ten). The counts
// must be equal but for elements within 3e-7 (relative, ~2 ulp) of a bound, which GPU logs and sums may round either way. Plain node on the
// built package (mla-diff, mla-diff/devices). Usage: node test/e2e/checks/lse-bounds-check.mjs [--device webgpu] [--out DIR].
// Exit status 1 on a mismatch or a leaked tensor.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { lseBoundViolations, LSE_SLACK, lseBoundsKernel } = dev;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);

let seed = 12345;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
/** max, and an lse around [max, max + ln k]: a quarter inside, the rest near or past a bound, some NaN/±inf. */
function values(n, keysAt) {
  const max = new Float32Array(n),
    lse = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    max[i] = (rand() - 0.5) * 20;
    const k = keysAt(i),
      hi = max[i] + (k > 0 ? Math.log(k) : -Infinity);
    const r = rand();
    lse[i] =
      r < 0.25
        ? max[i] + rand() * Math.max(0, hi - max[i])
        : r < 0.45
          ? max[i] - (rand() - 0.5) * 4e-4 // around the lower bound's slack
          : r < 0.65
            ? hi + (rand() - 0.5) * 4e-4 // around the upper one
            : r < 0.8
              ? max[i] + (rand() - 0.5) * 30
              : [NaN, Infinity, -Infinity, max[i] - 1][Math.floor(rand() * 4)];
    if (rand() < 0.02) max[i] = [NaN, -Infinity, Infinity][Math.floor(rand() * 3)];
  }
  return { lse, max };
}
const cases = [
  { name: 'MHA [64,512], keys [1,512] causal', shape: [64, 512], keys: [1, 512], k: (j) => j + 1 },
  { name: 'MQA [512,64], keys [512,1] causal', shape: [512, 64], keys: [512, 1], k: (j) => 1000 + j },
  { name: 'chunk [16,300], scalar keys', shape: [16, 300], keys: [], k: () => 4096 },
  { name: 'keys as large as lse [7,5], some 0', shape: [7, 5], keys: [7, 5], k: (j) => j % 6 },
  { name: 'one element', shape: [1, 1], keys: [1, 1], k: () => 1 },
  { name: 'MHA [64,9375] (600 000 elements)', shape: [64, 9375], keys: [1, 9375], k: (j) => j + 1 },
  { name: 'MQA [1025,64] (two workgroups, the second 64 elements)', shape: [1025, 64], keys: [1025, 1], k: (j) => j + 1 },
  { name: 'MQA [1000,64], relative slack 2^-8 (bf16 LSE)', shape: [1000, 64], keys: [1000, 1], k: (j) => j + 1, relSlack: 2 ** -8 },
];
const checks = [];
for (const c of cases) {
  const before = tf.memory().numTensors;
  const n = c.shape[0] * c.shape[1];
  const kSize = c.keys.reduce((a, b) => a * b, 1);
  const kv = Float32Array.from({ length: kSize }, (_, j) => c.k(j));
  const keyOf = (i) => (kSize === 1 ? kv[0] : kSize === n ? kv[i] : c.keys[0] === 1 ? kv[i % c.shape[1]] : kv[Math.floor(i / c.shape[1])]);
  const { lse, max } = values(n, keyOf);
  const [l, m, k] = [tf.tensor2d(lse, c.shape), tf.tensor2d(max, c.shape), c.keys.length ? tf.tensor(kv, c.keys) : tf.scalar(kv[0])];
  const want = tf.tidy(() => lseBoundViolations(l, m, k, c.relSlack ?? 0));
  const got = lseBoundsKernel(tf, l, m, k, c.relSlack ?? 0, LSE_SLACK);
  const [w, g] = [(await want.data())[0], (await got.data())[0]];
  tf.dispose([l, m, k, want, got]);
  const leaked = tf.memory().numTensors - before;
  // Elements within 3e-7 (relative, ~2 ulp) of a bound: GPU logs and sums may round them either way.
  let nearBound = 0;
  for (let i = 0; i < n; i++) {
    const s = LSE_SLACK + (c.relSlack ?? 0) * Math.abs(lse[i]);
    const k = keyOf(i);
    const near = (b) => Number.isFinite(b) && Math.abs(lse[i] - b) <= 3e-7 * Math.max(1, Math.abs(b));
    if (Number.isFinite(lse[i]) && (near(max[i] - s) || (k > 0 && near(max[i] + Math.log(k) + s)))) nearBound++;
  }
  const ok = Math.abs(w - g) <= nearBound && leaked === 0 && got.dtype === 'int32';
  checks.push({ name: c.name, elements: n, tfjsOps: w, kernel: g, nearBound, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${c.name}: ${g} violations (tfjs ops ${w}; ${nearBound} within 3e-7 of a bound)` +
      `${leaked ? ` leaked ${leaked}` : ''}`,
  );
}
const deviceError = rt.deviceError?.() ?? null;
if (deviceError) console.log(`FAIL: the device reported an error: ${deviceError.split('\n')[0]}`);
const passed = !deviceError && checks.every((c) => c.ok) && checks.some((c) => c.tfjsOps > 0);
const out = arg('out', null);
if (out) {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'lse-bounds-check.json'), JSON.stringify({ device: rt.device, passed, deviceError, checks }, null, 1));
}
console.log(passed ? `\nall ${checks.length} checks pass` : '\nFAIL');
process.exit(passed ? 0 : 1);
