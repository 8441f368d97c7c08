// gemm (src/devices/kernels/gemm.ts) against tf.matMul on the same backend: odd shapes off every tile edge
// (M=1, N=5, K=3, scalar and vec4 paths), real-shaped small products of the MLA layer's linears,
// batched and broadcast b, each tile set of the ladder (default, mid, fallback: k-steps in pairs, odd
// and even counts) and a deep bk, the k-steps one per loop iteration, and
// the empty products, split-K (few output tiles over a long K); then gemmHeads (src/devices/kernels/gemm-heads.ts): per-head products in
// token-major
// layouts ([T,N,K]·[N,K,E] → [T,N,E], and a [T,K] shared by every head) against tf.matMul on the
// heads-major transposes.
// Tolerance: max |gemm − matMul| / max |matMul| ≤ 1e-5 (the k-sum order differs), and the same
// against the float64 product on the host.
// Plain node on the built package (mla-diff, mla-diff/devices). Usage: node test/e2e/checks/gemm-check.mjs [--device webgpu] [--out DIR].
// Exit status 1 when an error exceeds the tolerance or a tensor leaks.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { gemm, planGemm, chooseSplitK, gemmHeads, DEFAULT_GEMM_TILES, MID_GEMM_TILES, FALLBACK_GEMM_TILES } = dev;

const outDir = arg('out');
const TOL = 1e-5;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);

/** Deterministic values in [-1, 1] (LCG), so a failure reproduces. */
function values(n, seed) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = (x / 2 ** 32) * 2 - 1;
  }
  return a;
}

const mm = (name, M, K, N, extra = {}) => ({ name, M, K, N, batch: 0, bBatch: 0, ...extra });
const bmm = (name, batch, bBatch, M, K, N, extra = {}) => ({ name, M, K, N, batch, bBatch, ...extra });
const CASES = [
  mm('1×3·3×5 (scalar A and B)', 1, 3, 5),
  mm('7×3·3×8 (scalar A, vec4 B)', 7, 3, 8),
  mm('9×8·8×5 (vec4 A, scalar B)', 9, 8, 5),
  mm('1×1·1×1', 1, 1, 1),
  mm('130×36·36×132 (vec4, default tiles, off edge)', 130, 36, 132, { tiles: DEFAULT_GEMM_TILES }),
  mm('129×37·37×131 (scalar, default tiles, off edge)', 129, 37, 131, { tiles: DEFAULT_GEMM_TILES }),
  mm('q_a_proj-like 33×768·768×256', 33, 768, 256),
  mm('kv_a_proj-like 65×768·768×576', 65, 768, 576),
  mm('kv_b_proj-like 200×512·512×896 (mid tiles)', 200, 512, 896, { tiles: MID_GEMM_TILES }),
  mm('q_b_proj-like 260×256·256×1024 (default tiles)', 260, 256, 1024, { tiles: DEFAULT_GEMM_TILES }),
  mm('o_proj-like 17×2048·2048×384', 17, 2048, 384),
  mm('K=0 (zeros)', 4, 0, 8),
  mm('M=0 (empty)', 0, 8, 8),
  mm('fallback tiles 70×44·44×90', 70, 44, 90, { tiles: FALLBACK_GEMM_TILES }),
  mm('512 threads, bk 16 150×64·64×140', 150, 64, 140, { tiles: { bm: 128, bn: 128, bk: 16, tm: 8, tn: 4 } }),
  mm('bk 16 tiles 100×100·100×100', 100, 100, 100, { tiles: { bm: 128, bn: 64, bk: 16, tm: 8, tn: 8 } }),
  mm('k-steps one per iteration (pairs off) 130×36·36×132', 130, 36, 132, { tiles: { ...DEFAULT_GEMM_TILES, pairs: false } }),
  mm('k-steps one per iteration (pairs off) 100×64·64×100', 100, 64, 100, { tiles: { ...MID_GEMM_TILES, pairs: false } }),
  bmm('batched 3×[19×24·24×28]', 3, 3, 19, 24, 28),
  bmm('broadcast b 4×[33×64]·[64×20]', 4, 1, 33, 64, 20),
  bmm('broadcast [1,K,N] b 2×[5×7]·[7×9]', 2, 1, 5, 7, 9, { bRank3: true }),
  // Split-K (gemm-split.ts): few output tiles over a long K, chosen by gemm without explicit tiles.
  mm('split-K: 64×2048·2048×128', 64, 2048, 128, { split: true }),
  mm('split-K, scalar B: 3×6144·6144×9', 3, 6144, 9, { split: true }),
  mm('split-K, o_proj-like 40×16384·16384×96', 40, 16384, 96, { split: true }),
];

/** The float64 product on the host, [batch·M, N] flattened (b broadcast when it has one entry). */
function hostProduct(c, av, bv) {
  const out = new Float64Array(Math.max(c.batch, 1) * c.M * c.N);
  for (let z = 0; z < Math.max(c.batch, 1); z++) {
    const bo = bv.length > c.K * c.N ? z * c.K * c.N : 0;
    for (let m = 0; m < c.M; m++)
      for (let k = 0; k < c.K; k++) {
        const x = av[(z * c.M + m) * c.K + k];
        for (let n = 0; n < c.N; n++) out[(z * c.M + m) * c.N + n] += x * bv[bo + k * c.N + n];
      }
  }
  return out;
}

/** max |got − want| / max |want|. */
function relErr(got, want) {
  let diff = 0,
    scale = 0;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

const checks = [];
for (const [i, c] of CASES.entries()) {
  const before = tf.memory().numTensors;
  const aShape = c.batch ? [c.batch, c.M, c.K] : [c.M, c.K];
  const bShape = c.batch && (c.bBatch > 1 || c.bRank3) ? [c.bBatch, c.K, c.N] : [c.K, c.N];
  const av = values(
    aShape.reduce((x, y) => x * y, 1),
    11 + 7 * i,
  );
  const bv = values(
    bShape.reduce((x, y) => x * y, 1),
    12 + 7 * i,
  );
  const a = tf.tensor(av, aShape);
  const b = tf.tensor(bv, bShape);
  const split = c.K && !c.tiles && !c.batch ? chooseSplitK(planGemm(a, b, tf.backend().device.limits)) : 1;
  const got = gemm(tf, a, b, c.tiles);
  const want = c.K ? tf.matMul(a, b) : tf.zeros(got.shape); // tfjs-webgpu's matMul cannot bind an empty operand
  const [g, w] = [await got.data(), await want.data()];
  const shapeOk = JSON.stringify(got.shape) === JSON.stringify(want.shape);
  tf.dispose([a, b, got, want]);
  const leaked = tf.memory().numTensors - before;
  const rel = relErr(g, w);
  const host = relErr(g, hostProduct(c, av, bv));
  const ok = shapeOk && rel <= TOL && host <= TOL && leaked === 0 && (!c.split || split > 1); // a split case must split
  const shape = `[${aShape}]·[${bShape}]`;
  checks.push({ name: c.name, shape, tiles: c.tiles ?? null, split, rel, host, shapeOk, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(50)} ${shape.padEnd(26)} ` +
      `vs matMul ${rel.toExponential(2)} vs float64 ${host.toExponential(2)}` +
      `${split > 1 ? ` split ${split}` : ''}${shapeOk ? '' : ' SHAPE'} leaked ${leaked}`,
  );
}

/** Per-head cases: x [T,N,K] (or [T,K] when shared), w [N,K,E]. */
const HEADS = [
  { name: 'heads: W_UK-like [33,4,12]·[4,12,20]', T: 33, N: 4, K: 12, E: 20 },
  { name: 'heads: W_UV-like [17,3,16]·[3,16,8]', T: 17, N: 3, K: 16, E: 8 },
  { name: 'heads: shared x (v-like) [9,16]·[5,16,12]', T: 9, N: 5, K: 16, E: 12, shared: true },
  { name: 'heads: scalar strides [5,3,6]·[3,6,10]', T: 5, N: 3, K: 6, E: 10 },
  { name: 'heads: default tiles off edge [70,2,36]·[2,36,132]', T: 70, N: 2, K: 36, E: 132, tiles: DEFAULT_GEMM_TILES },
];
for (const [i, c] of HEADS.entries()) {
  const before = tf.memory().numTensors;
  const xShape = c.shared ? [c.T, c.K] : [c.T, c.N, c.K];
  const xv = values(
    xShape.reduce((x, y) => x * y, 1),
    101 + 7 * i,
  );
  const wv = values(c.N * c.K * c.E, 102 + 7 * i);
  const x = tf.tensor(xv, xShape);
  const w = tf.tensor(wv, [c.N, c.K, c.E]);
  const got = gemmHeads(tf, x, w, c.tiles);
  const want = tf.tidy(() =>
    tf.transpose(tf.matMul(c.shared ? tf.tile(tf.expandDims(x, 0), [c.N, 1, 1]) : tf.transpose(x, [1, 0, 2]), w), [1, 0, 2]),
  ); // [T,N,E]
  const [g, wt] = [await got.data(), await want.data()];
  const shapeOk = JSON.stringify(got.shape) === JSON.stringify([c.T, c.N, c.E]);
  tf.dispose([x, w, got, want]);
  const leaked = tf.memory().numTensors - before;
  const host = new Float64Array(c.T * c.N * c.E); // out[t,h,e] = Σ_k x[t,h,k]·w[h,k,e]
  for (let t = 0; t < c.T; t++)
    for (let h = 0; h < c.N; h++)
      for (let k = 0; k < c.K; k++) {
        const xk = xv[c.shared ? t * c.K + k : (t * c.N + h) * c.K + k];
        for (let e = 0; e < c.E; e++) host[(t * c.N + h) * c.E + e] += xk * wv[(h * c.K + k) * c.E + e];
      }
  const rel = relErr(g, wt);
  const hostErr = relErr(g, host);
  const ok = shapeOk && rel <= TOL && hostErr <= TOL && leaked === 0;
  const shape = `[${xShape}]·[${c.N},${c.K},${c.E}]`;
  checks.push({ name: c.name, shape, tiles: c.tiles ?? null, rel, host: hostErr, shapeOk, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(50)} ${shape.padEnd(26)} ` +
      `vs matMul ${rel.toExponential(2)} vs float64 ${hostErr.toExponential(2)}` +
      `${shapeOk ? '' : ' SHAPE'} leaked ${leaked}`,
  );
}

const passed = checks.every((c) => c.ok);
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'gemm-check.json'), JSON.stringify({ device: rt.device, tolerance: TOL, passed, checks }, null, 2));
}
console.log(passed ? `\nall ${checks.length} cases within ${TOL} relative, no leak` : '\nFAIL: a case exceeds the tolerance or leaks');
process.exit(passed ? 0 : 1);
