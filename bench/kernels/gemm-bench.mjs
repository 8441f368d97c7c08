// Times gemm (src/devices/kernels/gemm.ts) against tf.matMul on the projections of one GLM-5 MLA layer,
// [T,in]·[in,out]: q_a_proj 6144→2048, q_b_proj 2048→16384, kv_a_proj_with_mqa 6144→576,
// kv_b_proj 512→28672, o_proj 16384→6144. Per T and shape: one warm-up, then the median of --reps
// runs, each synced by a 1-element read-back of its result; ms and TFLOP/s (2·T·in·out).
// --sweep also times a set of tile configs (each first checked against tf.matMul on a small
// off-tile product; configs the device's limits refuse are listed as skipped).
// Plain node on the built package (mla-diff, mla-diff/devices). Usage: node bench/kernels/gemm-bench.mjs [--device webgpu]
//   [--tokens 512,2048,8192] [--shapes q_a_proj,o_proj] [--reps 5] [--sweep | --pairs | --split] [--out DIR]
// --split: gemm as chosen (split-K where gemm-split.ts splits) against the same tiles in one program.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { gemm, planGemm, chooseSplitK } = dev;

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const outDir = arg('out');
const reps = Number(arg('reps', '5'));
const tokens = arg('tokens', '512,2048,8192').split(',').map(Number);
const sweep = process.argv.includes('--sweep');
const pairs = process.argv.includes('--pairs'); // the default tiles and others with their k-steps in pairs (GemmTiles.pairs)
const split = process.argv.includes('--split'); // auto (split over K where chooseSplitK says so) against the same tiles unsplit

const SHAPES = {
  q_a_proj: [6144, 2048],
  q_b_proj: [2048, 16384],
  kv_a_proj_with_mqa: [6144, 576],
  kv_b_proj: [512, 28672],
  o_proj: [16384, 6144],
};
const wanted = arg('shapes', Object.keys(SHAPES).join(',')).split(',');
const t = (bm, bn, bk, tm, tn) => ({ bm, bn, bk, tm, tn });
const SWEEP = [
  t(128, 128, 8, 8, 8),
  t(128, 128, 16, 8, 8),
  t(128, 64, 8, 8, 8),
  t(128, 64, 16, 8, 8),
  t(64, 128, 8, 8, 8),
  t(64, 128, 16, 8, 8),
  t(64, 64, 8, 4, 8),
  t(64, 64, 16, 4, 4),
  t(128, 128, 16, 8, 4),
  t(256, 128, 16, 8, 8),
  t(128, 256, 16, 8, 8),
  t(64, 256, 16, 8, 8),
];
const PAIRS = [
  t(64, 128, 8, 8, 8),
  { ...t(64, 128, 8, 8, 8), pairs: true },
  { ...t(64, 128, 16, 8, 8), pairs: true },
  { ...t(128, 128, 8, 8, 8), pairs: true },
  { ...t(64, 64, 16, 4, 4), pairs: true },
  t(64, 64, 16, 4, 4),
];
const tag = (x) => `${x.bm}x${x.bn}x${x.bk}/${x.tm}x${x.tn}${x.pairs ? ' pairs' : ''}`;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);

/** Median ms of fn() including a 1-element read-back of its result (one warm-up run first). */
async function timeIt(fn) {
  const times = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    const res = fn();
    const one = tf.slice(
      res,
      res.shape.map(() => 0),
      res.shape.map(() => 1),
    );
    await one.data();
    times.push(performance.now() - t0);
    tf.dispose([one, res]);
  }
  return times.slice(1).sort((a, b) => a - b)[Math.floor(reps / 2)];
}

/** max |gemm − matMul| / max |matMul| on a small product off every tile edge (fast to compare). */
async function check(tiles) {
  const [a, b] = [tf.randomUniform([300, 200], -1, 1, 'float32', 1), tf.randomUniform([200, 260], -1, 1, 'float32', 2)];
  const [g, w] = [gemm(tf, a, b, tiles), tf.matMul(a, b)];
  const [gv, wv] = [await g.data(), await w.data()];
  tf.dispose([a, b, g, w]);
  let [d, s] = [0, 0];
  for (let i = 0; i < wv.length; i++) {
    d = Math.max(d, Math.abs(gv[i] - wv[i]));
    s = Math.max(s, Math.abs(wv[i]));
  }
  return d / s;
}

const configs = [];
if (sweep || pairs || split) {
  // the GPU's clocks ramp up under load: 3 s of products before the first timing
  const w = tf.randomNormal([4096, 4096]);
  for (const t0 = performance.now(); performance.now() - t0 < 3000;) {
    const c = tf.matMul(w, w);
    await tf.slice(c, [0, 0], [1, 1]).data();
    c.dispose();
  }
  w.dispose();
}
if (split) configs.push({ tiles: null, tag: 'unsplit', unsplit: true });
for (const tiles of sweep ? [null, ...SWEEP] : pairs ? [null, ...PAIRS] : [null]) {
  if (!tiles) {
    configs.push({ tiles: null, tag: 'auto' });
    continue;
  }
  try {
    const rel = await check(tiles);
    configs.push({ tiles, tag: tag(tiles), checkRel: rel, ok: rel <= 1e-5 });
    console.log(`tiles ${tag(tiles)}: check vs matMul ${rel.toExponential(2)}`);
  } catch (e) {
    configs.push({ tiles, tag: tag(tiles), skipped: String(e.message ?? e) });
    console.log(`tiles ${tag(tiles)}: skipped (${e.code ?? ''} ${e.message ?? e})`);
  }
}

const rows = [];
const tflops = (T, K, N, ms) => (2 * T * K * N) / ms / 1e9;
for (const T of tokens) {
  for (const name of wanted) {
    const [K, N] = SHAPES[name];
    const x = tf.randomUniform([T, K], -1, 1, 'float32', 3); // [T,in]
    const w = tf.randomUniform([K, N], -0.05, 0.05, 'float32', 4); // [in,out]
    const matMulMs = await timeIt(() => tf.matMul(x, w));
    const row = { T, name, K, N, matMulMs, matMulTflops: tflops(T, K, N, matMulMs), gemm: [] };
    for (const c of configs.filter((c) => !c.skipped)) {
      const plan = planGemm(x, w, tf.backend().device.limits);
      // explicit tiles: one program, no split
      const ms = await timeIt(() => gemm(tf, x, w, c.unsplit ? plan.tiles : (c.tiles ?? undefined)));
      const parts = chooseSplitK(plan);
      const chosen = c.tiles
        ? c.tag
        : `${c.unsplit ? 'unsplit' : 'auto'} ${tag(plan.tiles)}${!c.unsplit && parts > 1 ? ` split ${parts}` : ''}`;
      row.gemm.push({ tiles: chosen, ms, tflops: tflops(T, K, N, ms) });
    }
    tf.dispose([x, w]);
    rows.push(row);
    const best = row.gemm.reduce((a, b) => (b.ms < a.ms ? b : a));
    console.log(
      `T=${String(T).padEnd(5)} ${name.padEnd(19)} [${T},${K}]·[${K},${N}]  matMul ${matMulMs.toFixed(2)} ms ` +
        `${row.matMulTflops.toFixed(1)} TFLOP/s  ` +
        row.gemm.map((g) => `gemm ${g.tiles} ${g.ms.toFixed(2)} ms ${g.tflops.toFixed(1)}`).join('  ') +
        (sweep || pairs || split ? `  best ${best.tiles}` : ''),
    );
  }
}

if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'gemm-bench.json'), JSON.stringify({ device: rt.device, reps, tokens, configs, rows }, null, 2));
}
