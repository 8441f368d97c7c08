// Tile sweep of the fused attention (src/kernels/flash-wgsl.ts) on one device: the MHA form
// (64 heads, D = E = 256, T = S = 2048, causal) and the MQA form (T = 512 tokens × 64 heads packed
// as rows, S = 2048 latent keys of 576, V = its first 512, causal after 1536 keys). Each valid tile
// set: one warm-up, then the median of --reps runs ending with a 1-element read-back; effective
// TFLOP/s over the causal half. Prints a table and the best set per form; writes --out JSON.
// Usage: node bench/kernels/flash-tiles.mjs --device webgpu [--reps 3] [--out f.json]
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const dist = (m) => require(new URL(`../../dist/${m}.js`, import.meta.url).pathname);
const { selectRuntime } = dist('runtime/select');
const { flashAttention } = dist('kernels/flash-attention');
const { tilesProblem, tileBytes } = dist('kernels/flash-wgsl');

const arg = (name, dflt) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : dflt; };
const reps = Number(arg('reps', '3'));
const rt = await selectRuntime(arg('device', 'webgpu'));
const { tf } = rt;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const FORMS = [
  { name: 'mha', A: 64, B: 2048, S: 2048, D: 256, E: 256, vFromK: false, mask: { offset: 0, rowsPerToken: 1 }, flop: 2 * 64 * (2048 * 2048 / 2) * 512 },
  { name: 'mqa', A: 1, B: 512 * 64, S: 2048, D: 576, E: 512, vFromK: true, mask: { offset: 1536, rowsPerToken: 64 }, flop: 2 * 64 * 512 * (1536 + 256) * 1088 },
];
const sets = [];
for (const rows of [16, 32, 64]) for (const keys of [16, 32, 64]) for (const chunk of [16, 32, 64]) for (const threads of [64, 128, 256]) {
  const t = { rows, keys, chunk, threads };
  // At most 128 accumulator floats per thread at E = 512 (more spills registers), 32 KiB of workgroup memory.
  if (!tilesProblem(t) && tileBytes(t) <= 32768 && (Math.ceil(512 / chunk) * rows * chunk) / threads <= 128) sets.push(t);
}
const rows = [];
for (const f of FORMS) {
  const q = tf.randomNormal([f.A, f.B, f.D]);
  const k = tf.randomNormal([f.vFromK ? 1 : f.A, f.S, f.D]);
  const v = f.vFromK ? null : tf.randomNormal([f.A, f.S, f.E]);
  for (const tiles of sets) {
    const run = async () => {
      const r = flashAttention(tf, { q, k, v, valueWidth: f.E, scale: 0.06, mask: f.mask, tiles });
      await tf.slice(r.lse, [0, 0], [1, 1]).data();
      tf.dispose([r.out, r.lse, r.max]);
    };
    try {
      await run();
      const ts = [];
      for (let i = 0; i < reps; i++) { const t0 = performance.now(); await run(); ts.push(performance.now() - t0); }
      const ms = median(ts);
      rows.push({ form: f.name, ...tiles, bytes: tileBytes(tiles), ms, tflops: f.flop / (ms / 1000) / 1e12 });
      console.log(`${f.name} rows ${tiles.rows} keys ${tiles.keys} chunk ${tiles.chunk} threads ${tiles.threads}: ${ms.toFixed(2)} ms, ${(f.flop / (ms / 1000) / 1e12).toFixed(2)} TFLOP/s`);
    } catch (e) {
      console.log(`${f.name} ${JSON.stringify(tiles)}: ${e.code ?? 'error'} ${e.message}`);
    }
  }
  tf.dispose([q, k, ...(v ? [v] : [])]);
  const best = rows.filter((r) => r.form === f.name).sort((a, b) => a.ms - b.ms)[0];
  if (best) console.log(`BEST ${f.name}: rows ${best.rows} keys ${best.keys} chunk ${best.chunk} threads ${best.threads}: ${best.ms.toFixed(2)} ms, ${best.tflops.toFixed(2)} TFLOP/s`);
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify({ device: rt.device, reps, rows }, null, 1));
