// Tile sweep of the fused attention (src/devices/kernels/flash-tiles.ts, flash-wgsl.ts) on one device: the MHA form
// (64 heads, D = E = 256, T = S = 2048 or --tokens, causal) and the MQA form (T = 512 tokens × 64 heads packed
// as rows, S = 2048 latent keys of 576, V = its first 512, causal after 1536 keys). The GPU's clocks
// ramp up under load, so: 3 s of the default first, then two passes over the sets (the second in
// reverse order), each a compile run and the median of --reps runs ending with a 1-element
// read-back; a set's time is the smaller of its two medians; effective TFLOP/s over the causal half.
// The sets: rows × keys × logit micro-tile (4×4, 8×4, 4×8) × outRows (4, 8) × chunk (16, 32), the
// largest valueKeys that fits the device's workgroup memory, 128..1024 threads, at most 64 output
// floats per thread (128 for the wide MQA form, where 64 leaves few).
// The default set (defaultTiles) is marked. Prints a table and the best set per form; --out JSON.
// Usage: node bench/kernels/flash-tiles.mjs --device webgpu [--reps 3] [--out f.json] [--list 1: only print the sets]
//   [--defaults 1: only the default tiles and their twin with prefetchV flipped]
//   [--unroll 1: the default, unrolled, unrolled with chunk 32, chunk 32, unrolled with twice the valueKeys]
//   [--fast 1: every set as the defaults run (prefetchV and unroll on), chunks 8/16/32]
//   [--sets '[{...}, ...]': the default and these (fields over it)] [--forms mha,mqa]
//   [--acc N: at most N output floats per thread in both forms] [--tokens T: the MHA form at T = S (2048), the MQA form a causal prefill of
//   T]
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');
const { selectRuntime } = api;
const { flashAttention, tilesProblem, tileBytes, accumulatorFloats, defaultTiles } = dev;

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const reps = Number(arg('reps', '3'));
const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const T = Number(arg('tokens', '2048')); // the MHA form's T = S
const FORMS = [
  {
    name: 'mha',
    A: 64,
    B: T,
    S: T,
    D: 256,
    E: 256,
    vFromK: false,
    mask: { offset: 0, rowsPerToken: 1 },
    flop: 2 * 64 * ((T * T) / 2) * 512,
  },
  arg('tokens', null) === null // the MQA form: 512 queries after 1536 keys, or with --tokens a causal prefill of T
    ? {
        name: 'mqa',
        A: 1,
        B: 512 * 64,
        S: 2048,
        D: 576,
        E: 512,
        vFromK: true,
        mask: { offset: 1536, rowsPerToken: 64 },
        flop: 2 * 64 * 512 * (1536 + 256) * 1088,
      }
    : {
        name: 'mqa',
        A: 1,
        B: T * 64,
        S: T,
        D: 576,
        E: 512,
        vFromK: true,
        mask: { offset: 0, rowsPerToken: 64 },
        flop: 2 * 64 * ((T * T) / 2) * 1088,
      },
];
const forms = arg('forms', 'mha,mqa').split(',');
const fast = arg('fast', '0') === '1';
const limits = tf.backend().device.limits;
function tileSets(D, E) {
  const sets = [];
  for (const rows of [32, 64, 128])
    for (const keys of [32, 64, 128])
      for (const [scoreRows, scoreKeys] of [
        [4, 4],
        [8, 4],
        [4, 8],
      ]) {
        for (const outRows of [4, 8])
          for (const chunk of fast ? [8, 16, 32] : [16, 32]) {
            const threads = (rows / scoreRows) * (keys / scoreKeys);
            const t = [32, 16, 8, 4]
              .map((valueKeys) => ({
                rows,
                keys,
                chunk,
                threads,
                scoreRows,
                scoreKeys,
                outRows,
                valueKeys,
                ...(fast ? { prefetchV: true, unroll: true } : {}),
              }))
              .find((c) => !tilesProblem(c) && tileBytes(c, E) <= limits.maxComputeWorkgroupStorageSize);
            const acc = Number(arg('acc', E > 256 ? '128' : '64'));
            if (t && threads >= 128 && threads <= limits.maxComputeInvocationsPerWorkgroup && accumulatorFloats(t, E) <= acc) sets.push(t);
          }
      }
  const dflt = defaultTiles(D, E, limits);
  const twin = { ...dflt, prefetchV: !dflt.prefetchV }; // V staged directly or through registers
  if (arg('defaults', '0') === '1') return [dflt, twin];
  if (arg('unroll', '0') === '1') {
    // the default with its Q·Kᵀ and P·V loops unrolled, and with a wider chunk
    const u = { ...dflt, unroll: !dflt.unroll };
    return [dflt, u, { ...u, chunk: 32 }, { ...dflt, chunk: 32 }, { ...u, valueKeys: 2 * dflt.valueKeys }].filter(
      (t) => !tilesProblem(t) && tileBytes(t, E) <= limits.maxComputeWorkgroupStorageSize,
    );
  }
  if (arg('sets', null)) return [dflt, ...JSON.parse(arg('sets', '[]')).map((o) => ({ ...dflt, ...o }))]; // fields over the default
  const same = (a, b) => Object.keys(a).every((k) => a[k] === b[k]);
  return [dflt, twin, ...sets.filter((t) => !same(t, dflt))];
}
const label = (t) =>
  `rows ${t.rows} keys ${t.keys} chunk ${t.chunk} threads ${t.threads} score ${t.scoreRows}x${t.scoreKeys} outRows ${t.outRows}` +
  ` valueKeys ${t.valueKeys}${t.prefetchV ? ' prefetchV' : ''}${t.unroll ? ' unroll' : ''}`;
const rows = [];
for (const f of FORMS.filter((x) => forms.includes(x.name))) {
  const q = tf.randomNormal([f.A, f.B, f.D]);
  const k = tf.randomNormal([f.vFromK ? 1 : f.A, f.S, f.D]);
  const v = f.vFromK ? null : tf.randomNormal([f.A, f.S, f.E]);
  const sets = tileSets(f.D, f.E);
  console.log(`${f.name}: ${sets.length} tile sets (the first is the default)`);
  if (arg('list', '0') === '1') {
    sets.forEach((t) => console.log(`  ${label(t)}`));
    tf.dispose([q, k, ...(v ? [v] : [])]);
    continue;
  }
  const run = async (tiles) => {
    const r = flashAttention(tf, { q, k, v, valueWidth: f.E, scale: 0.06, mask: f.mask, tiles });
    const one = tf.slice(r.lse, [0, 0], [1, 1]);
    await one.data();
    tf.dispose([one, r.out, r.lse, r.max]);
  };
  // The GPU's clocks ramp up under load: 3 s of the default first, then two passes over the sets
  // (the second in reverse order), each set's time the smaller of its two medians.
  for (const t0 = performance.now(); performance.now() - t0 < 3000;) await run(sets[0]);
  const timed = new Map();
  for (const order of [[...sets.keys()], [...sets.keys()].reverse()]) {
    for (const n of order) {
      const tiles = sets[n];
      try {
        await run(tiles); // compiles on the first pass
        const ts = [];
        for (let i = 0; i < reps; i++) {
          const t0 = performance.now();
          await run(tiles);
          ts.push(performance.now() - t0);
        }
        timed.set(n, Math.min(timed.get(n) ?? Infinity, median(ts)));
      } catch (e) {
        if (!timed.has(n)) console.log(`${f.name} ${JSON.stringify(tiles)}: ${e.code ?? 'error'} ${e.message}`);
        timed.set(n, NaN);
      }
    }
  }
  for (const [n, ms] of [...timed.entries()].sort(([a], [b]) => a - b)) {
    if (!Number.isFinite(ms)) continue;
    const tiles = sets[n];
    rows.push({
      form: f.name,
      ...tiles,
      isDefault: n === 0,
      bytes: tileBytes(tiles, f.E),
      acc: accumulatorFloats(tiles, f.E),
      ms,
      tflops: f.flop / (ms / 1000) / 1e12,
    });
    console.log(
      `${f.name}${n === 0 ? ' [default]' : ''} ${label(tiles)}: ${ms.toFixed(2)} ms, ${(f.flop / (ms / 1000) / 1e12).toFixed(2)} TFLOP/s`,
    );
  }
  tf.dispose([q, k, ...(v ? [v] : [])]);
  const best = rows.filter((r) => r.form === f.name).sort((a, b) => a.ms - b.ms)[0];
  if (best) console.log(`BEST ${f.name}: ${label(best)}: ${best.ms.toFixed(2)} ms, ${best.tflops.toFixed(2)} TFLOP/s`);
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify({ device: rt.device, reps, rows }, null, 1));
