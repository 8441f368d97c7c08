// Issue 8: one GLM-5 layer (64 heads) through both engine paths at long prompts, fused attention
// (schedule.attention) against the unfused ops, probes off and on. A prompt of T tokens is prefilled
// in chunks of --chunk tokens (the MHA path then attends the cached context in vLLM's default 64k
// context chunks, in key parts where a chunk's kv_b_proj output would pass the 2 GiB binding limit);
// every piece runs through mha and mqa, one warm-up piece first; then through both as the CLI runs a
// piece (stepPaths: the MQA step enqueued while the GPU runs the MHA step), recorders finished per piece.
// Prints per T and path: wall ms (all pieces, median of 9 runs for T ≤ 2048, 5 for T ≤ 8192 (a ~30 ms host pause, V8's
// major GC, hits one run in a few), 1 above, after
// 1 s of GPU warm-up per T and, for one piece, an untimed run per mode; the
// embeddings already on the device, o_proj_out left there), effective TFLOP/s of the layer (projections
// and the causal attention products), and the GPU buffer pool's high-water mark. Writes --out JSON.
// Usage: node bench/gpu/attention.mjs --device webgpu --tokens 512,2048,8192 --chunk 4096 --attention fused|unfused [--probes on|off|both]
// [--out f.json]
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arg, glmLayer, warmUp } from './layer-common.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');

const { selectRuntime, MhaBackend, MqaBackend, TensorRecorder, NULL_PROBE, stepPaths } = api;

const tokens = arg('tokens', '512,2048').split(',').map(Number);
const chunk = Number(arg('chunk', '4096'));
const attention = arg('attention', 'fused');
const probes = arg('probes', 'both');
const rt = await selectRuntime(arg('device', 'auto'));
await warmUp(rt);
const rows = [];
/**
 * FLOPs of one path over a T-token prompt: the projections (q_a, q_b, kv_a, kv_b or the absorbed
 * W_UK/W_UV products, o_proj) and the attention products over the causal half (MHA q·kᵀ over
 * D = P+R and p·v over V; MQA over the latent C = L+R and L), 2 per multiply-add.
 */
function layerFlop(c, path, T) {
  const [H, Lq, N, P, R, V, L] = [
    c.hidden_size,
    c.q_lora_rank,
    c.num_attention_heads,
    c.qk_nope_head_dim,
    c.qk_rope_head_dim,
    c.v_head_dim,
    c.kv_lora_rank,
  ];
  const common = 2 * T * (H * Lq + Lq * N * (P + R) + H * (L + R) + N * V * H);
  const pairs = (N * T * (T + 1)) / 2;
  return path === 'mha'
    ? common + 2 * T * L * N * (P + V) + 2 * pairs * (P + R + V)
    : common + 2 * T * N * L * (P + V) + 2 * pairs * (L + R + L);
}
for (const T of tokens) {
  const { s, plan, chunk: c, attn, layer, kernels, pieces, dispose } = glmLayer(rt, T, chunk, attention);
  await warmUp(rt, 1000); // the GPU idled while the host made the layer's weights
  const row = { tokens: T, chunk: c, attention: attn.attention ? 'fused' : 'unfused', pieces: plan.pieces.length };
  for (const [name, Backend] of [
    ['mha', MhaBackend],
    ['mqa', MqaBackend],
  ]) {
    for (const mode of probes === 'both' ? ['off', 'on'] : [probes]) {
      const path = new Backend(layer, new Set(), plan.tables.numSlots, kernels);
      const filter = attn.attention ? (st) => st !== 'logits' && st !== 'attn_probs' : undefined;
      try {
        await path.step(pieces[0], NULL_PROBE); // warm-up: shader compilation (its cache rows are rewritten below)
        const once = async () => {
          let ms = 0;
          for (const piece of pieces) {
            const rec =
              mode === 'on' ? new TensorRecorder(rt.tf, { stats: rt.stats, ...(filter ? { filter } : {}) }, (x) => rt.hostView(x)) : null;
            const t0 = performance.now();
            await stepPaths([path], [rec], piece); // as the CLI runs one path: the recorder's read-back starts with the step's
            if (rec) await rec.finish(name);
            ms += performance.now() - t0;
          }
          return ms;
        };
        if (pieces.length === 1) await once(); // untimed: the buffer pool grows to what this mode holds (a recorder keeps its taps' stats)
        const times = [];
        for (let r = 0; r < (T <= 2048 ? 9 : T <= 8192 ? 5 : 1); r++) times.push(await once());
        const ms = times.sort((x, y) => x - y)[Math.floor(times.length / 2)]; // the median
        const flop = layerFlop(s.config, name, T);
        const mem = rt.tf.memory();
        // The pool's high-water mark: tfjs-backend-webgpu keeps freed buffers for reuse and never shrinks it.
        const gpuBytes = mem.numBytesAllocatedInGPU ?? mem.numBytes;
        row[`${name}_${mode}`] = { ms, runs: times, flop, tflops: flop / (ms / 1000) / 1e12, gpuBytes };
        console.log(
          `T=${T} chunk=${c} ${row.attention} ${name} probes ${mode}: ${ms.toFixed(1)} ms (median of ${times.length}; layer ` +
            `${(flop / 1e12).toFixed(2)} TFLOP → ${(flop / (ms / 1000) / 1e12).toFixed(2)} TFLOP/s; GPU pool ` +
            `${(gpuBytes / 2 ** 30).toFixed(2)} GiB)`,
        );
      } catch (e) {
        row[`${name}_${mode}`] = { error: String(e.message ?? e) };
        console.log(`T=${T} ${name} probes ${mode}: ${e.code ?? 'error'}: ${e.message ?? e}`);
      } finally {
        path.dispose();
      }
    }
  }
  // Both paths as the CLI runs a piece (src/harness/run/step-paths.ts): each path's step enqueued before either is awaited.
  for (const mode of probes === 'both' ? ['off', 'on'] : [probes]) {
    const paths = [
      new MhaBackend(layer, new Set(), plan.tables.numSlots, kernels),
      new MqaBackend(layer, new Set(), plan.tables.numSlots, kernels),
    ];
    const filter = attn.attention ? (st) => st !== 'logits' && st !== 'attn_probs' : undefined;
    try {
      await stepPaths(paths, [null, null], pieces[0]); // warm-up
      const once = async () => {
        let ms = 0;
        for (const piece of pieces) {
          const recs = paths.map(() =>
            mode === 'on' ? new TensorRecorder(rt.tf, { stats: rt.stats, ...(filter ? { filter } : {}) }, (x) => rt.hostView(x)) : null,
          );
          const t0 = performance.now();
          await stepPaths(paths, recs, piece);
          await Promise.all(recs.map((r, i) => r?.finish(paths[i].name)));
          ms += performance.now() - t0;
        }
        return ms;
      };
      if (pieces.length === 1) await once();
      const times = [];
      for (let r = 0; r < (T <= 2048 ? 9 : T <= 8192 ? 5 : 1); r++) times.push(await once());
      const ms = [...times].sort((x, y) => x - y)[Math.floor(times.length / 2)];
      row[`both_${mode}`] = { ms, runs: times };
      console.log(
        `T=${T} chunk=${c} ${row.attention} both paths pipelined, probes ${mode}: ${ms.toFixed(1)} ms (median of ` +
          `${times.length}: ${times.map((x) => x.toFixed(1)).join(', ')})`,
      );
    } catch (e) {
      row[`both_${mode}`] = { error: String(e.message ?? e) };
      console.log(`T=${T} both paths probes ${mode}: ${e.code ?? 'error'}: ${e.message ?? e}`);
    } finally {
      for (const p of paths) p.dispose();
    }
  }
  dispose();
  rows.push(row);
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify({ device: rt.device, chunk, attention, rows }, null, 1));
