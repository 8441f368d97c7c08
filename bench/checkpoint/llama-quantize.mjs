// GGUF files written by llama.cpp itself (issue 20 point 4): quantizes the F32 one-layer engine model
// (deepseek2, split k_b/v_b, synthetic seed 7) of two configs into every ftype mla-diff reads, through
// libllama's llama_model_quantize (llama.cpp's own per-tensor type choice), and measures every tensor:
// our decoder against ggml's own to_float (bits), our error against the F32 source over our half-step
// bound. Prints the Markdown tables of bench/checkpoint/llama-quantize.md.
// Usage: npx tsc -p tsconfig.build.json && node bench/checkpoint/llama-quantize.mjs [seeds=1]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { preset, SyntheticWeights } = require('mla-diff');
const { writeEngineModel, LLAMA_FTYPES, quantizeManyWithLlama, LLAMA_BOUND_FACTOR, checkQuantized } = require('mla-diff/engines');

const seeds = Number(process.argv[2] ?? 1);
const ALIGNED = {
  ...preset('tiny'),
  hidden_size: 512,
  num_attention_heads: 2,
  q_lora_rank: 256,
  kv_lora_rank: 256,
  qk_nope_head_dim: 128,
  qk_rope_head_dim: 64,
  v_head_dim: 128,
};
const MODELS = { 'aligned (hidden 512, 2 heads, ranks 256)': ALIGNED, 'tiny (hidden 96)': preset('tiny') };
const dir = mkdtempSync(join(tmpdir(), 'mla-diff-llq-bench-'));
const worst = new Map();
const fmt = (x) => (x === 0 ? '0' : x.toPrecision(3));
try {
  for (const [label, config] of Object.entries(MODELS)) {
    const rows = new Map();
    for (let seed = 7; seed < 7 + seeds; seed++) {
      const f32 = join(dir, 'f32.gguf');
      writeEngineModel(f32, { source: new SyntheticWeights(config, seed), arch: 'deepseek2', contextLength: 64, kvB: 'split' });
      const targets = Object.keys(LLAMA_FTYPES).map((ftype) => ({ output: join(dir, `${ftype}.gguf`), ftype }));
      const t0 = performance.now();
      const results = quantizeManyWithLlama(f32, targets, { ggml: true });
      const wall = (performance.now() - t0) / 1000;
      for (const r of results) {
        const row = rows.get(r.ftype) ?? { tensors: 0, types: new Map(), bits: 0, diff: 0, ratio: new Map(), seconds: 0, ok: true };
        for (const c of checkQuantized(f32, r)) {
          if (seed === 7) {
            row.tensors++;
            row.types.set(c.type, (row.types.get(c.type) ?? 0) + 1);
          }
          row.bits += c.bitMismatches;
          row.diff = Math.max(row.diff, c.maxOursVsGgml);
          row.ok &&= c.withinBound;
          if (c.maxErrorOverBound !== null && !c.zeroSource) {
            row.ratio.set(c.type, Math.max(row.ratio.get(c.type) ?? 0, c.maxErrorOverBound));
            worst.set(c.type, Math.max(worst.get(c.type) ?? 0, c.maxErrorOverBound));
          }
        }
        row.seconds += r.seconds;
        rows.set(r.ftype, row);
      }
      if (seed === 7)
        console.error(`${label}: ${targets.length} ftypes quantized and ggml-dequantized in ${wall.toFixed(1)} s (one child)`);
    }
    console.log(`\n### ${label}\n`);
    console.log(
      "| ftype | tensors | llama.cpp's types (count) | bits ≠ ggml | max \\|ours − ggml\\| | max err / half step | within bound |",
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [ftype, r] of rows) {
      const types = [...r.types].map(([t, n]) => `${t} ${n}`).join(', ');
      const ratio = [...r.ratio].map(([t, q]) => `${t} ${q.toFixed(2)}`).join(', ') || '— (float)';
      console.log(`| ${ftype} | ${r.tensors} | ${types} | ${r.bits} | ${fmt(r.diff)} | ${ratio} | ${r.ok ? 'yes' : '**no**'} |`);
    }
  }
  console.log('\n### Worst err / half step per stored type, against LLAMA_BOUND_FACTOR\n');
  console.log('| type | worst | factor |\n|---|---|---|');
  for (const [t, q] of [...worst].sort()) console.log(`| ${t} | ${q.toFixed(3)} | ${LLAMA_BOUND_FACTOR[t]} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
