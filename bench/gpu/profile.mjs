// Where the time of one GLM-5 layer (64 heads) goes on the GPU: each path's step for a T-token
// prompt in one piece (fused attention, probes off), timed per WebGPU program with timestamp queries
// (tf.time; every program gets its own pass, so the sum exceeds the pipelined wall time); with
// --probes on a recorder takes every stage (the stats programs it launches are in the profile). Prints,
// per T and path: wall ms of the plain step, GPU ms summed per program name (count, share), and writes
// --out JSON. Usage: node bench/gpu/profile.mjs --device webgpu --tokens 2048,8192 [--probes on] [--out f.json]
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const dist = (m) => require(new URL(`../../dist/${m}.js`, import.meta.url).pathname);
const { selectRuntime } = dist('runtime/select');
const { parseScenario } = dist('scenario/load');
const { openSource } = dist('weights/source');
const { planRun } = dist('run/pieces');
const { planAttention } = dist('run/plan');
const { uploadLayer, disposeLayer } = dist('backends/layer');
const { MhaBackend } = dist('backends/mha');
const { MqaBackend } = dist('backends/mqa');
const { NULL_PROBE } = dist('probes/probe');
const { TensorRecorder } = dist('probes/recorder');

const arg = (name, dflt) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : dflt; };
const tokens = arg('tokens', '2048').split(',').map(Number);
const probes = arg('probes', 'off') === 'on';
const rt = await selectRuntime(arg('device', 'auto'));
// The GPU's clocks ramp up under load: 3 s of 4096² products before the first timing.
{
  const a = rt.tf.randomNormal([4096, 4096]);
  for (const t0 = performance.now(); performance.now() - t0 < 3000;) {
    const c = rt.tf.matMul(a, a);
    const one = rt.tf.slice(c, [0, 0], [1, 1]);
    await one.data();
    rt.tf.dispose([c, one]);
  }
  a.dispose();
}
const { tf } = rt;
const results = [];
for (const T of tokens) {
  const s = parseScenario(`name: profile\nmodel: { preset: glm-5 }\nreference: off\nschedule: { attention: fused, context_chunk: 8192, block_size: 64 }\n`
    + `requests:\n  - name: p\n    steps: [{ prefill: ${T} }]\n`);
  const source = openSource(s.weights);
  const plan = planRun(s, source);
  const heads = { start: 0, count: s.config.num_attention_heads };
  const attn = planAttention(rt, s, heads, T, T);
  const layer = { ...uploadLayer(rt, source, heads, T), attention: attn.attention };
  for (const [name, Backend] of [['mha', MhaBackend], ['mqa', MqaBackend]]) {
    const path = new Backend(layer, new Set(), plan.tables.numSlots, plan.kernels);
    const piece = { ...plan.pieces[0], deviceEmbeddings: tf.keep(tf.tensor2d(plan.pieces[0].embeddings, [T, s.config.hidden_size])) }; // on the device, as PyTorch's x
    try {
      await path.step(piece, NULL_PROBE); // warm-up: shader compilation
      const walls = [];
      for (let i = 0; i < 3; i++) { const t0 = performance.now(); await path.step(piece, NULL_PROBE); walls.push(performance.now() - t0); }
      const wall = walls.sort((a, b) => a - b)[1];
      let out = null;
      let finished = null;
      // The recorder launches its stats programs before its first await, inside the timed function.
      const rec = probes ? new TensorRecorder(tf, { stats: rt.stats, filter: (st) => st !== 'logits' && st !== 'attn_probs' }, (x) => rt.hostView(x)) : null;
      rec?.at(piece);
      const info = await tf.time(() => { out = tf.tidy(() => path.run(piece, rec ?? NULL_PROBE)); finished = rec?.finish(name); });
      await out.data();
      await finished;
      out.dispose();
      const by = new Map();
      for (const part of (info.getExtraProfileInfo?.() ?? '').split(', ').filter(Boolean)) {
        const i = part.lastIndexOf(': ');
        const [prog, ms] = [part.slice(0, i), Number(part.slice(i + 2))];
        const e = by.get(prog) ?? { program: prog, ms: 0, count: 0 };
        e.ms += ms; e.count += 1; by.set(prog, e);
      }
      const programs = [...by.values()].sort((a, b) => b.ms - a.ms);
      results.push({ tokens: T, path: name, probes: probes ? 'on' : 'off', wallMs: wall, gpuMs: info.kernelMs, programs });
      console.log(`T=${T} ${name}: wall ${wall.toFixed(1)} ms, GPU ${info.kernelMs.toFixed(1)} ms in ${programs.reduce((n, p) => n + p.count, 0)} programs`);
      for (const p of programs.slice(0, 14)) console.log(`  ${p.program.padEnd(36)} ${p.ms.toFixed(2).padStart(9)} ms  ×${String(p.count).padEnd(4)} ${(100 * p.ms / info.kernelMs).toFixed(1)}%`);
    } catch (e) {
      results.push({ tokens: T, path: name, error: String(e.message ?? e) });
      console.log(`T=${T} ${name}: ${e.code ?? 'error'}: ${e.message ?? e}`);
    } finally {
      path.dispose();
      piece.deviceEmbeddings.dispose();
    }
  }
  disposeLayer(layer);
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify({ device: rt.device, results }, null, 1));
