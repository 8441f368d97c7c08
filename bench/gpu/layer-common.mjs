// Shared by bench/gpu/attention.mjs and bench/gpu/profile.mjs: arguments, the GPU
// warm-up, and one GLM-5 layer (all 64 heads, synthetic weights) set up for a T-token prompt the way
// run-scenario plans it (fused or unfused attention, key parts), its pieces' embeddings on the device.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { parseScenario, openSource, planRun, planAttention, planKeyPart, uploadLayer, disposeLayer } = api;

export const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/**
 * The GPU's clocks ramp up under load and drop while it idles (as during a layer's set-up on the
 * host): `ms` of 4096² products before a timing (webgpu only; 3 s before the first).
 */
export async function warmUp(rt, ms = 3000) {
  if (rt.device.name !== 'webgpu') return;
  const a = rt.tf.randomNormal([4096, 4096]);
  for (const t0 = performance.now(); performance.now() - t0 < ms;) {
    const c = rt.tf.matMul(a, a);
    const one = rt.tf.slice(c, [0, 0], [1, 1]);
    await one.data();
    rt.tf.dispose([c, one]);
  }
  a.dispose();
}

/**
 * A T-token prompt prefilled in chunks of `chunk` tokens (vLLM's default 64k context chunk) through
 * one GLM-5 layer: the scenario, its plan, the uploaded layer, the kernels (key parts planned) and
 * the pieces with their embeddings on the device (as PyTorch's x is). dispose() frees them.
 */
export function glmLayer(rt, T, chunk, attention) {
  const c = Math.min(chunk, T);
  const s = parseScenario(
    `name: bench\nmodel: { preset: glm-5 }\nreference: off\nschedule: { attention: ${attention}, block_size: 64 }\n` +
      `requests:\n  - name: p\n    steps: [{ prefill: ${T}${c < T ? `, chunk: ${c}` : ''} }]\n`,
  );
  const source = openSource(s.weights);
  const plan = planRun(s, source);
  const heads = { start: 0, count: s.config.num_attention_heads };
  const attn = planAttention(rt, s, heads, c, T);
  const layer = { ...uploadLayer(rt, source, heads, c), attention: attn.attention };
  const kernels = { ...plan.kernels, keyPart: planKeyPart(rt, s.config, heads) }; // long context chunks in key parts, as run-scenario plans
  const pieces = plan.pieces.map((p) => ({
    ...p,
    deviceEmbeddings: rt.tf.keep(rt.tf.tensor2d(p.embeddings, [p.positions.length, s.config.hidden_size])),
  }));
  const dispose = () => {
    for (const p of pieces) p.deviceEmbeddings.dispose();
    disposeLayer(layer);
  };
  return { s, plan, chunk: c, attn, layer, kernels, pieces, dispose };
}
