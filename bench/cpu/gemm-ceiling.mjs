// The CPU ceiling of the wasm backend against numpy on the same machine: the projections of one
// GLM-5 layer at T tokens as plain products, tf.matMul on tfjs-backend-wasm (both operand orders) (XNNPACK, SIMD128, one
// thread: the threaded build does not initialise in Node) beside numpy's `@` (its BLAS, all
// cores), each the median of --reps after a warm-up. Prints GFLOP/s per shape and the layer's
// projection total; stores its data under 'gemm-ceiling-T' in bench/cpu/results.json and re-renders
// bench/cpu/results.md (bench/cpu/results.mjs), or with --out writes that JSON file instead. This bounds how close a wasm run of the layer
// can come to
// ../shared/anchors/mla_numpy.py, whatever the attention does. With a host BLAS (src/devices/kernels/host-blas.ts;
// not with --blas off), the same x·Wᵀ as mla-diff's wasm runtime then forms it, through that BLAS.
// Usage: npm run build && node bench/cpu/gemm-ceiling.mjs [--tokens 512] [--reps 3] [--blas auto|off] [--out f.json]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { record } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log(
    'Usage: npm run build && node bench/cpu/gemm-ceiling.mjs [--tokens 512] [--reps 3] [--blas auto|off] [--out f.json ' +
      '(instead of results.json)]',
  );
  process.exit(0);
}

const require = createRequire(import.meta.url);
const dev = require('mla-diff/devices');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-wasm');
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const T = Number(arg('tokens', '512'));
const reps = Number(arg('reps', '3'));
// [in, out] of q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj (GLM-5).
const SHAPES = {
  q_a_proj: [6144, 2048],
  q_b_proj: [2048, 16384],
  kv_a_proj_with_mqa: [6144, 576],
  kv_b_proj: [512, 28672],
  o_proj: [16384, 6144],
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await tf.setBackend('wasm');
await tf.ready();
const { loadHostBlas, installBlasMatMul } = dev;
const { blas } = arg('blas', 'auto') === 'off' ? { blas: null } : loadHostBlas({ kind: 'auto' });
const rows = [];
for (const [name, [K, N]] of Object.entries(SHAPES)) {
  // Both operand orders: x·W with W [K,N] (XNNPACK repacks W each call) and W·xᵀ with W [N,K] (it
  // packs only xᵀ and streams W: the form mla-diff's wasm runtime uses); the faster counts.
  const timed = async (a, b, transposeB = false) => {
    const times = [];
    for (let r = 0; r <= reps; r++) {
      const t0 = performance.now();
      const y = tf.matMul(a, b, false, transposeB);
      await y.data();
      times.push(performance.now() - t0);
      y.dispose();
    }
    return median(times.slice(1));
  };
  const [x, w, wt, xt] = [tf.randomNormal([T, K]), tf.randomNormal([K, N]), tf.randomNormal([N, K]), tf.randomNormal([K, T])];
  const direct = await timed(x, w); // [T,K]·[K,N]
  const swapped = await timed(wt, xt); // [N,K]·[K,T]
  installBlasMatMul(blas);
  const blasMs = blas ? await timed(x, wt, true) : null; // [T,K]·[N,K]ᵀ in one sgemm
  installBlasMatMul(null);
  tf.dispose([x, w, wt, xt]);
  rows.push({ name, M: T, K, N, flop: 2 * T * K * N, directMs: direct, swappedMs: swapped, wasmMs: Math.min(direct, swapped), blasMs });
}
const py = `
import numpy as np, time, json, sys
out = []
for M, K, N in json.loads(sys.argv[1]):
    x = np.random.standard_normal((M, K)).astype(np.float32); w = np.random.standard_normal((K, N)).astype(np.float32)
    x @ w
    ts = []
    for _ in range(${reps}):
        t = time.perf_counter(); x @ w; ts.append(time.perf_counter() - t)
    out.append(sorted(ts)[len(ts) // 2] * 1e3)
print(json.dumps(out))`;
const np = spawnSync('python3', ['-c', py, JSON.stringify(rows.map((r) => [r.M, r.K, r.N]))], { encoding: 'utf8' });
const npMs = np.status === 0 ? JSON.parse(np.stdout) : rows.map(() => null);
rows.forEach((r, i) => {
  r.numpyMs = npMs[i];
});
const g = (flop, ms) => (ms ? (flop / (ms / 1000) / 1e9).toFixed(1) : '—');
console.log(`T=${T}: shape, wasm (tf.matMul: XNNPACK; host BLAS: ${blas?.description ?? 'none'}) and numpy ms, GFLOP/s`);
for (const r of rows)
  console.log(
    `  ${r.name.padEnd(20)} [${r.M},${r.K}]·[${r.K},${r.N}]  wasm ${r.wasmMs.toFixed(1)} ms ${g(r.flop, r.wasmMs)} (x·W ` +
      `${r.directMs.toFixed(0)}, W·xᵀ ${r.swappedMs.toFixed(0)})  host BLAS ${r.blasMs?.toFixed(1) ?? '—'} ms ` +
      `${g(r.flop, r.blasMs)}  numpy ${r.numpyMs?.toFixed(1) ?? '—'} ms ${g(r.flop, r.numpyMs)}`,
  );
const sum = (k) => rows.reduce((s, r) => s + (r[k] ?? NaN), 0);
const flop = rows.reduce((s, r) => s + r.flop, 0);
console.log(
  `  projections total: wasm ${sum('wasmMs').toFixed(0)} ms (${g(flop, sum('wasmMs'))} GFLOP/s), host BLAS ` +
    `${sum('blasMs').toFixed(0)} ms (${g(flop, sum('blasMs'))} GFLOP/s), numpy ${sum('numpyMs').toFixed(0)} ms (` +
    `${g(flop, sum('numpyMs'))} GFLOP/s): ratio ${(sum('wasmMs') / sum('numpyMs')).toFixed(1)}×`,
);
const out = arg('out', null);
const result = {
  command: `node bench/cpu/gemm-ceiling.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  date: new Date().toISOString(),
  tokens: T,
  reps,
  threads: 'wasm 1, host BLAS and numpy all cores',
  blas: blas?.description ?? null,
  rows,
};
if (out) writeFileSync(out, JSON.stringify(result, null, 1));
else record(`gemm-ceiling-${T}`, result);
