// llama.cpp against float64, stage by stage (docs/llama-cpp.md "Precision" quotes these): a GLM-5 layer on TP rank 0 of
// 8 (glm-dsa, 24-token prefill + 2 decodes) with an F32 cache, an F16 cache and flash attention; and a 256-aligned layer
// whose F32 weights llama.cpp quantized itself (Q8_0, Q4_K_M), run from that GGUF. Writes agreement.json and prints
// agreement.md's table. Usage: npm run build && node bench/engines/agreement.mjs > bench/engines/agreement.md
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { preset, SyntheticWeights } = require('mla-diff');
const { writeEngineModel, quantizeManyWithLlama } = require('mla-diff/engines');
const pkg = require('mla-diff/package.json');
const CLI = join(dirname(require.resolve('mla-diff/package.json')), pkg.bin['mla-diff']);
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mla-diff-agreement-'));

const GLM =
  'model: { preset: glm-5 }\nweights: { synthetic: { seed: 3 } }\ncases: [{ name: tp8, tp: { size: 8, rank: 0 } }]\n' +
  'requests:\n  - name: chat\n    steps: [{ prefill: 24 }, { decode: 2 }]\n';
const STAGES = ['q_c_raw', 'kv_cache', 'ql_nope', 'logits', 'attn_probs', 'attn_out_heads', 'o_proj_out'];

function run(name, yaml) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `version: 1\nname: ${name}\n${yaml}reference: on\n`);
  let out;
  try {
    out = execFileSync(process.execPath, [CLI, 'run', file, '--device', 'wasm', '--format', 'json'], { maxBuffer: 1 << 30 });
  } catch (e) {
    out = e.stdout; // exit 1: a divergence is still a report
  }
  const r = JSON.parse(out);
  const c = r.cases[0];
  const worst = {};
  for (const d of c.trace.diffs) if (d.a === 'external' && d.b === 'reference') worst[d.stage] = Math.max(worst[d.stage] ?? 0, d.relErr);
  return { name, verdict: r.verdict, activation: c.trace.external?.engine?.activation, worst };
}

const rows = [
  run('glm-f32-cache', `${GLM}engines: [{ name: llama.cpp, arch: glm-dsa, cache_type: f32 }]\n`),
  run('glm-f16-cache', `${GLM}engines: [{ name: llama.cpp, arch: glm-dsa }]\n`),
  run('glm-f32-cache-fa', `${GLM}engines: [{ name: llama.cpp, arch: glm-dsa, cache_type: f32, flash_attn: true }]\n`),
];
const dims = { hidden_size: 512, q_lora_rank: 256, kv_lora_rank: 256, qk_nope_head_dim: 64, qk_rope_head_dim: 32, v_head_dim: 64 };
const c = { ...preset('tiny'), ...dims, num_attention_heads: 2 };
writeEngineModel(join(dir, 'f32.gguf'), { source: new SyntheticWeights(c, 5), arch: 'deepseek2', contextLength: 4096, kvB: 'split' });
quantizeManyWithLlama(
  join(dir, 'f32.gguf'),
  ['Q8_0', 'Q4_K_M'].map((t) => ({ output: join(dir, `${t}.gguf`), ftype: t })),
);
for (const t of ['Q8_0', 'Q4_K_M'])
  rows.push(
    run(
      `quantized-${t}`,
      `model: {}\nweights:\n  gguf: ${join(dir, `${t}.gguf`)}\n  layer: 0\n` +
        'requests: [{ name: chat, steps: [{ prefill: 7 }, { decode: 2 }] }]\nengines: [llama.cpp]\n',
    ),
  );
rmSync(dir, { recursive: true, force: true });
writeFileSync(
  join(here, 'agreement.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
);
const e = (x) => (x === undefined ? '—' : x.toExponential(1));
console.log('# llama.cpp against float64, by stage\n');
console.log('Command: `npm run build && node bench/engines/agreement.mjs > bench/engines/agreement.md` (CPU build, 2 threads).');
console.log('Relative L2 of llama.cpp against the float64 reference, the worst over the pieces; — where the stage is not captured.\n');
console.log(`| run | verdict | ${STAGES.join(' | ')} |`);
console.log(`|---|---|${STAGES.map(() => '---').join('|')}|`);
for (const r of rows) console.log(`| ${r.name} | ${r.verdict} | ${STAGES.map((s) => e(r.worst[s])).join(' | ')} |`);
