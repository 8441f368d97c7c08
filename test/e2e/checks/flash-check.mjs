// flashAttention (src/devices/kernels/flash-attention.ts) against the unfused tfjs path on the same
// backend: logits = scale·q·kᵀ (tf.matMul) + the causal −inf bias, then `attend` of
// mla-diff/devices (the oracle the paths use). Small shapes covering the MHA form, the
// MQA form (V = the latent's first E columns), T = 1, T and S off the tile, context before the
// piece, no mask, S = 0 under both emptyLse, fully masked rows, several row blocks and key tiles; and
// token-major inputs and output (layout 'tokens'). Then a timing of both on a few
// larger shapes (a sanity number on lavapipe; the H200 numbers come from the GPU bench).
// Plain node on the built package (mla-diff, mla-diff/devices). Usage: node test/e2e/checks/flash-check.mjs [--device webgpu] [--out DIR]
// [--prefetch-v 0|1]
//   [--time 1|0] [--reps 3] [--prefetch-v 0|1] [--unroll 0|1] [--tiles JSON]. Exit status 1 when an error exceeds the tolerance or a tensor
//   leaks.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { attend, flashAttention, defaultTiles } = dev;

const outDir = arg('out');
const reps = Number(arg('reps', '3'));
const TOL = 1e-5;

const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
console.log(`device: ${rt.device.description}`);

/** Deterministic values in [-amp, amp] (LCG), so a failure reproduces. */
function values(n, seed, amp) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = ((x / 2 ** 32) * 2 - 1) * amp;
  }
  return a;
}

/** The unfused oracle: [A,B,S] logits, the additive causal bias, attend. */
function unfused(c, q, k, v) {
  return tf.tidy(() => {
    const values3 = v ?? tf.slice(k, [0, 0, 0], [-1, -1, c.E]); // [A|1,S,E]
    const kb = k.shape[0] === c.A ? k : tf.tile(k, [c.A, 1, 1]); // [A,S,D]
    const vb = values3.shape[0] === c.A ? values3 : tf.tile(values3, [c.A, 1, 1]); // [A,S,E]
    let logits = tf.mul(tf.matMul(q, kb, false, true), c.scale); // [A,B,S]
    if (c.mask && c.S > 0) {
      const bias = new Float32Array(c.B * c.S);
      for (let b = 0; b < c.B; b++)
        for (let s = 0; s < c.S; s++) bias[b * c.S + s] = s <= c.mask.offset + Math.floor(b / c.mask.rowsPerToken) ? 0 : -Infinity;
      logits = tf.add(logits, tf.tensor2d(bias, [c.B, c.S]));
    }
    return attend(logits, vb, 'native', c.mask !== null, c.emptyLse ?? '-inf');
  });
}

/** max |got − want| / max |want| over the finite entries; non-finite entries must match exactly. */
function relErr(got, want) {
  let diff = 0,
    scale = 0,
    mismatched = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i],
      w = want[i];
    if (!Number.isFinite(w) || !Number.isFinite(g)) {
      if (g !== w) mismatched++;
      continue;
    }
    diff = Math.max(diff, Math.abs(g - w));
    scale = Math.max(scale, Math.abs(w));
  }
  return { rel: scale > 0 ? diff / scale : diff, mismatched };
}

const mha = (name, A, B, S, D, E, mask, extra = {}) => ({ name, A, B, S, D, E, Ak: A, vShared: false, mask, ...extra });
const mqa = (name, N, T, S, mask, extra = {}) => ({
  name,
  A: 1,
  B: T * N,
  S,
  D: 576,
  E: 512,
  Ak: 1,
  vFromK: true,
  mask: mask && { offset: mask, rowsPerToken: N },
  ...extra,
});
const causal = (offset) => ({ offset, rowsPerToken: 1 });
const CASES = [
  mha('MHA D24/E16 T=5 causal', 3, 5, 5, 24, 16, causal(0)),
  mha('MHA D24/E16 T=1', 2, 1, 1, 24, 16, causal(0)),
  mha('MHA D24/E16 T=37 after 30 context keys', 4, 37, 67, 24, 16, causal(30)),
  mha('MHA D24/E16 rows 0,1 fully masked (offset −2)', 2, 9, 9, 24, 16, causal(-2)),
  mha('MHA D24/E16 shared k,v (1 head) ', 3, 20, 20, 24, 16, causal(0), { Ak: 1, vShared: true }),
  mha('MHA D256/E256 T=19 causal', 2, 19, 19, 256, 256, causal(0)),
  mha('MHA D256/E256 context chunk, no mask', 2, 21, 45, 256, 256, null),
  mha('MHA D256/E256 T=70 after 3 keys', 2, 70, 73, 256, 256, causal(3)),
  mqa('MQA N=4 T=6 after 9 keys', 4, 6, 15, 9),
  mqa('MQA N=8 T=1 after 39 keys', 8, 1, 40, 39),
  mqa('MQA N=16 T=5 context chunk, no mask', 16, 5, 70, null),
  mqa('MQA N=4 T=3 split past row 0 (offset −1)', 4, 3, 3, -1),
  mqa('MQA N=5 T=13 causal', 5, 13, 13, 0),
  mha('MHA D256/E256 T=75 causal, 2 row blocks', 2, 75, 75, 256, 256, causal(0)),
  mqa('MQA N=64 T=3 after 140 keys, 2+ key tiles', 64, 3, 143, 140),
  mha('MHA D256/E256 T=75 causal, split-KV forced (rows < 64 see no key in part 2)', 2, 75, 75, 256, 256, causal(0), { splits: 3 }),
  mqa('MQA N=64 T=1 decode after 2047 keys, split-KV chosen', 64, 1, 2048, 2047),
  mqa('MQA N=16 T=2 context chunk, no mask, split-KV forced', 16, 2, 700, null, { splits: 5 }),
  mha('S=0 emptyLse −inf', 2, 3, 0, 24, 16, causal(0), { emptyLse: '-inf' }),
  mha('S=0 emptyLse +inf', 2, 3, 0, 24, 16, null, { emptyLse: '+inf' }),
  mqa('MQA S=0 emptyLse +inf', 4, 2, 0, 0, { emptyLse: '+inf' }),
  // Token-major ('tokens': q [B,A,D], k [S,A|1,D], v [S,A|1,E], out [B,A,E]), as the MHA path hands its own tokens over.
  mha('tokens: MHA D256/E256 T=70 after 3 keys', 2, 70, 73, 256, 256, causal(3), { tokens: true }),
  mha('tokens: MHA D24/E16 shared k,v (1 head)', 3, 20, 20, 24, 16, causal(0), { Ak: 1, vShared: true, tokens: true }),
  mha('tokens: MHA D256/E256 T=75, split-KV forced', 2, 75, 75, 256, 256, causal(0), { splits: 3, tokens: true }),
  mha('tokens: MHA D24/E16 context chunk, no mask', 4, 37, 67, 24, 16, null, { tokens: true }),
  mha('tokens: S=0 emptyLse −inf', 2, 3, 0, 24, 16, causal(0), { emptyLse: '-inf', tokens: true }),
];

function inputs(c, seed) {
  const q = tf.tensor3d(values(c.A * c.B * c.D, seed, 2), [c.A, c.B, c.D]);
  const k = tf.tensor3d(values(c.Ak * c.S * c.D, seed + 1, 2), [c.Ak, c.S, c.D]);
  const v = c.vFromK ? null : tf.tensor3d(values((c.vShared ? 1 : c.Ak) * c.S * c.E, seed + 2, 1), [c.vShared ? 1 : c.Ak, c.S, c.E]);
  return { q, k, v, scale: 1 / Math.sqrt(c.D) };
}

// --prefetch-v 0|1: the default tiles with V staged directly or through registers (default: as defaultTiles has it).
// --unroll 0|1: the default tiles with the Q·Kᵀ and P·V loops unrolled or not (default: as defaultTiles has it).
// --tiles '{"narrow": {...}, "wide": {...}}': fields over the default tiles of the MHA-like (E ≤ 256) and the MQA (E > 256) cases.
const prefetchV = arg('prefetch-v', null);
const unroll = arg('unroll', null);
const forced = JSON.parse(arg('tiles', '{}'));
const flag = (name, v) => (v === null ? {} : { [name]: v === '1' });
const tilesFor = (c) =>
  prefetchV === null && unroll === null && !Object.keys(forced).length
    ? {}
    : {
        tiles: {
          ...defaultTiles(c.D, c.E, tf.backend().device.limits),
          ...flag('prefetchV', prefetchV),
          ...flag('unroll', unroll),
          ...(forced[c.E > 256 ? 'wide' : 'narrow'] ?? {}),
        },
      };
const request = (c, x) => ({
  q: x.q,
  k: x.k,
  v: x.v,
  valueWidth: c.E,
  scale: x.scale,
  mask: c.mask,
  emptyLse: c.emptyLse,
  ...(c.splits ? { splits: c.splits } : {}),
  ...tilesFor(c),
});
const swap01 = (t) => tf.transpose(t, [1, 0, 2]);
/** The kernel on the case's layout: token-major cases get transposed copies and their out transposed back. */
function fused(c, x) {
  if (!c.tokens) return flashAttention(tf, request(c, x));
  const t = { ...x, q: swap01(x.q), k: swap01(x.k), v: x.v && swap01(x.v) };
  const r = flashAttention(tf, { ...request(c, t), layout: 'tokens' });
  const shapeOk = r.out.shape.join() === [c.B, c.A, c.E].join();
  const out = swap01(r.out);
  tf.dispose([t.q, t.k, t.v, r.out].filter(Boolean));
  if (!shapeOk) throw new Error(`${c.name}: out ${r.out.shape}, want [${c.B},${c.A},${c.E}]`);
  return { ...r, out };
}

const checks = [];
for (const [i, c] of CASES.entries()) {
  const x = inputs(c, 17 + 7 * i);
  const before = tf.memory().numTensors;
  const got = fused(c, x);
  const want = unfused({ ...c, scale: x.scale }, x.q, x.k, x.v);
  const read = async (r) => Promise.all([r.out.data(), r.lse.data(), r.max.data()]);
  const [g, w] = [await read(got), await read(want)];
  for (const t of [got, want]) tf.dispose([t.out, t.lse, t.max]);
  const leaked = tf.memory().numTensors - before;
  tf.dispose([x.q, x.k, x.v].filter(Boolean));
  const [out, lse, max] = [0, 1, 2].map((j) => relErr(g[j], w[j]));
  const ok = out.rel <= TOL && lse.rel <= TOL && max.rel <= TOL && !out.mismatched && !lse.mismatched && !max.mismatched && leaked === 0;
  const shape = `A=${c.A} B=${c.B} S=${c.S} D=${c.D} E=${c.E}${c.vFromK ? ' V=K[:E]' : ''}`;
  checks.push({ name: c.name, shape, out, lse, max, leakedTensors: leaked, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(46)} ${shape.padEnd(34)} ` +
      `out ${out.rel.toExponential(2)} lse ${lse.rel.toExponential(2)} max ${max.rel.toExponential(2)} ` +
      `non-finite mismatches ${out.mismatched + lse.mismatched + max.mismatched} leaked ${leaked}`,
  );
}

/** Median ms of fn() including a 1-element read-back of its result (the first run warms up). */
async function timeIt(fn) {
  const times = [];
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    const res = fn();
    const one = tf.slice(res.out, [0, 0, 0], [1, 1, 1]);
    await one.data();
    times.push(performance.now() - t0);
    tf.dispose([one, res.out, res.lse, res.max]);
  }
  return [...times.slice(1)].sort((a, b) => a - b)[Math.floor(reps / 2)];
}

const timings = [];
if (arg('time', '1') !== '0') {
  const shapes = [
    mha('MHA 8 heads D256 T=256 causal', 8, 256, 256, 256, 256, causal(0)),
    mqa('MQA 16 heads T=64 after 192 keys', 16, 64, 256, 192),
  ];
  for (const c of shapes) {
    const x = inputs(c, 5);
    const flash = await timeIt(() => flashAttention(tf, request(c, x)));
    const ref = await timeIt(() => unfused({ ...c, scale: x.scale }, x.q, x.k, x.v));
    tf.dispose([x.q, x.k, x.v].filter(Boolean));
    timings.push({ name: c.name, A: c.A, B: c.B, S: c.S, D: c.D, E: c.E, flashMs: flash, unfusedMs: ref });
    console.log(`time ${c.name}: flash ${flash.toFixed(1)} ms, unfused ${ref.toFixed(1)} ms (median of ${reps})`);
  }
}

const passed = checks.every((c) => c.ok);
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'flash-check.json'), JSON.stringify({ device: rt.device, tolerance: TOL, passed, checks, timings }, null, 2));
}
console.log(passed ? `\nall ${checks.length} cases within ${TOL} relative, no leak` : '\nFAIL: a case exceeds the tolerance or leaks');
process.exit(passed ? 0 : 1);
