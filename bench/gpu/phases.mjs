// Where a step's wall time goes on the host side: one GLM-5 layer (64 heads) per path, one piece of T
// tokens, fused attention. Per T, path and probes off/on (after two warm-up steps in the same mode):
//   enqueue  host time to encode the step (tf.tidy(path.run) returns; tfjs submits every
//            WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE dispatches, so the GPU runs meanwhile)
//   wait     the one-element read that waits for the GPU
//   finish   the recorder's finish (stats launched, one joined read-back, records assembled)
//   programs WebGPU programs dispatched by the step (and by finish)
// and `pipelined`: 4 steps back to back with one read at the end, per step (probes off). Also the
// latency of a bare one-element read, and at the smallest T the step under other submit batch sizes.
// Usage: node bench/gpu/phases.mjs --device webgpu --tokens 512,2048,8192 [--out f.json]
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arg, glmLayer, warmUp } from './layer-common.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const dev = require('mla-diff/devices');

const { selectRuntime, MhaBackend, MqaBackend, TensorRecorder, NULL_PROBE } = api;
const { SUBMIT_BATCH } = dev;

const tokens = arg('tokens', '512,2048').split(',').map(Number);
const rt = await selectRuntime(arg('device', 'auto'));
const { tf } = rt;
await warmUp(rt);
const backend = tf.backend();
let programs = 0;
const run0 = backend.runWebGPUProgram?.bind(backend);
if (run0)
  backend.runWebGPUProgram = (...a) => {
    programs++;
    return run0(...a);
  };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const filter = (st) => st !== 'logits' && st !== 'attn_probs';

async function once(path, piece, name, on) {
  const rec = on ? new TensorRecorder(tf, { stats: rt.stats, filter }, (x) => rt.hostView(x)) : null;
  rec?.at(piece);
  programs = 0;
  const t0 = performance.now();
  const out = tf.tidy(() => path.run(piece, rec ?? NULL_PROBE));
  const t1 = performance.now();
  const stepPrograms = programs;
  const one = tf.slice(out, [0, 0], [1, 1]);
  await one.data();
  const t2 = performance.now();
  tf.dispose([out, one]);
  programs = 0;
  if (rec) await rec.finish(name);
  const t3 = performance.now();
  return { enqueue: t1 - t0, wait: t2 - t1, finish: t3 - t2, total: t3 - t0, programs: stepPrograms, finishPrograms: programs };
}

const sync = [];
for (let i = 0; i < 20; i++) {
  const x = tf.scalar(i);
  const t0 = performance.now();
  await tf.add(x, 1).data();
  sync.push(performance.now() - t0);
  x.dispose();
}
console.log(`bare read: median ${median(sync).toFixed(2)} ms`);
const results = { device: rt.device, syncMs: median(sync), rows: [] };
for (const T of tokens) {
  const { plan, layer, kernels, pieces, dispose } = glmLayer(rt, T, T, 'fused');
  await warmUp(rt, 1000); // the GPU idled while the host made the layer's weights
  const piece = pieces[0];
  for (const [name, Backend] of [
    ['mha', MhaBackend],
    ['mqa', MqaBackend],
  ]) {
    const path = new Backend(layer, new Set(), plan.tables.numSlots, kernels);
    try {
      for (const on of [false, true]) {
        for (let w = 0; w < 2; w++) await once(path, piece, name, on);
        const runs = [];
        for (let r = 0; r < (T <= 2048 ? 7 : 3); r++) runs.push(await once(path, piece, name, on));
        const m = (k) => median(runs.map((x) => x[k]));
        const row = {
          tokens: T,
          path: name,
          probes: on ? 'on' : 'off',
          enqueue: m('enqueue'),
          wait: m('wait'),
          finish: m('finish'),
          total: m('total'),
          programs: runs[0].programs,
          finishPrograms: runs[0].finishPrograms,
          runs,
        };
        if (!on) {
          const t0 = performance.now();
          const outs = [];
          for (let i = 0; i < 4; i++) outs.push(tf.tidy(() => path.run(piece, NULL_PROBE)));
          await tf.slice(outs[3], [0, 0], [1, 1]).data();
          row.pipelined = (performance.now() - t0) / 4;
          tf.dispose(outs);
        }
        if (!on && T === tokens[0] && run0) {
          row.batchSizes = {};
          for (const b of [1, 4, 15, 64, 1000]) {
            tf.env().set('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE', b);
            await once(path, piece, name, false);
            const xs = [];
            for (let r = 0; r < 5; r++) xs.push((await once(path, piece, name, false)).total);
            row.batchSizes[b] = median(xs);
          }
          tf.env().set('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE', SUBMIT_BATCH); // the runtime's choice, back
        }
        results.rows.push(row);
        console.log(
          `T=${T} ${name} probes ${row.probes}: total ${row.total.toFixed(1)} = enqueue ${row.enqueue.toFixed(1)} + wait ` +
            `${row.wait.toFixed(1)} + finish ${row.finish.toFixed(1)} ms; ${row.programs} + ${row.finishPrograms} programs` +
            `${row.pipelined ? `; pipelined ${row.pipelined.toFixed(1)} ms/step` : ''}` +
            `${row.batchSizes ? `; by submit batch ${JSON.stringify(row.batchSizes)}` : ''}`,
        );
      }
    } catch (e) {
      console.log(`T=${T} ${name}: ${e.code ?? 'error'}: ${e.message ?? e}`);
    } finally {
      path.dispose();
    }
  }
  dispose();
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify(results, null, 1));
