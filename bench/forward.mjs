// Times the forward pass of both MLA paths of one GLM-5 layer on a tfjs device, probes off
// (NULL_PROBE) and on (every stage recorded), the way PyTorch anchors time theirs: weights built
// once, one warm-up, then the median of --reps runs, each ending when o_proj_out is on the host.
// Usage: node bench/forward.mjs --device webgpu --tokens 5,512,2048 --reps 5 [--preset glm-5] [--out f.json]
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import os from 'node:os';

const require = createRequire(import.meta.url);
const dist = (m) => require(new URL(`../dist/${m}.js`, import.meta.url).pathname);
const { selectRuntime } = dist('runtime/select');
const { SyntheticWeights } = dist('weights/synthetic');
const { uploadLayer, disposeLayer } = dist('backends/layer');
const { MhaBackend } = dist('backends/mha');
const { MqaBackend } = dist('backends/mqa');
const { TensorRecorder } = dist('probes/recorder');
const { NULL_PROBE } = dist('probes/probe');
const { RETAINED } = dist('run/reference-job');
const { preset } = dist('model/presets');
const { syntheticIds } = dist('scenario/load');

const arg = (name, dflt) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : dflt; };
const device = arg('device', 'auto');
const tokens = arg('tokens', '5,512,2048').split(',').map(Number);
const reps = Number(arg('reps', '5'));
const cfg = preset(arg('preset', 'glm-5'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rt = await selectRuntime(device);
const source = new SyntheticWeights(cfg, 0);
const rows = [];
for (const T of tokens) {
  const ids = syntheticIds(T, cfg.vocab_size, 0);
  const input = { ids, positions: ids.map((_, i) => i), embeddings: source.embeddings(ids) };
  let t = performance.now();
  const layer = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, T);
  const uploadMs = performance.now() - t;
  const out = {};
  const row = { tokens: T, uploadMs };
  for (const [name, Backend] of [['mha', MhaBackend], ['mqa', MqaBackend]]) {
    const path = new Backend(layer, new Set());
    out[name] = await path.forward(input, NULL_PROBE); // warm-up (shader compilation)
    const times = [];
    for (let r = 0; r < reps; r++) { t = performance.now(); await path.forward(input, NULL_PROBE); times.push(performance.now() - t); }
    const rec = new TensorRecorder(rt.tf, { retain: RETAINED }, (x) => rt.hostView(x));
    t = performance.now();
    await path.forward(input, rec);
    const recorded = await rec.finish(name);
    const probesOnMs = performance.now() - t;
    for (const c of recorded.captured.values()) if (c.where === 'device') c.tensor.dispose();
    path.dispose();
    row[name] = { probesOffMs: median(times), probesOffAllMs: times, probesOnMs };
  }
  let dd = 0, aa = 0;
  for (let i = 0; i < out.mha.length; i++) { dd += (out.mha[i] - out.mqa[i]) ** 2; aa += out.mha[i] ** 2; }
  row.relMhaMqa = Math.sqrt(dd / aa);
  row.outNorm = Math.sqrt(aa);
  disposeLayer(layer);
  rows.push(row);
  console.log(`T=${T} mha ${row.mha.probesOffMs.toFixed(1)} ms (probes on ${row.mha.probesOnMs.toFixed(0)}) mqa ${row.mqa.probesOffMs.toFixed(1)} ms (probes on ${row.mqa.probesOnMs.toFixed(0)}) rel(mha,mqa)=${row.relMhaMqa.toExponential(2)} |out|=${row.outNorm.toFixed(3)} upload ${uploadMs.toFixed(0)} ms`);
}
const result = { command: `node bench/forward.mjs ${process.argv.slice(2).join(' ')}`, device: rt.device, host: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version }, preset: arg('preset', 'glm-5'), reps, rows };
const file = arg('out');
if (file) writeFileSync(file, JSON.stringify(result, null, 2));
process.exit(0);
