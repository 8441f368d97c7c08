// Where the time of one GLM-5 layer (64 heads) goes on the GPU: each path's step for a T-token
// prompt in one piece (fused attention, probes off), timed per WebGPU program with timestamp queries
// (tf.time; every program gets its own pass, so the sum exceeds the pipelined wall time); with
// --probes on a recorder takes every stage (the stats programs it launches are in the profile). Prints,
// per T and path: wall ms of the plain step, GPU ms summed per program name (count, share), and writes
// --out JSON. Usage: node bench/gpu/profile.mjs --device webgpu --tokens 2048,8192 [--probes on] [--out f.json]
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arg, glmLayer, warmUp } from './layer-common.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');

const { selectRuntime, MhaBackend, MqaBackend, NULL_PROBE, TensorRecorder } = api;

const tokens = arg('tokens', '2048').split(',').map(Number);
const probes = arg('probes', 'off') === 'on';
const rt = await selectRuntime(arg('device', 'auto'));
await warmUp(rt);
const { tf } = rt;
// mla-diff's own programs are plain objects (tfjs's profile names a program by its constructor): name
// each by its shader key's stem and output shape, e.g. "mlaGemm [8192,6144]".
const backend = tf.backend();
const run0 = backend.runWebGPUProgram?.bind(backend);
if (run0) {
  backend.runWebGPUProgram = (program, ...rest) => {
    if (program.constructor === Object) {
      const name = `${String(program.shaderKey).split('_')[0]} [${program.outputShape}]`;
      Object.setPrototypeOf(program, { constructor: { name } });
    }
    return run0(program, ...rest);
  };
}
const results = [];
for (const T of tokens) {
  const { plan, layer, kernels, pieces, dispose } = glmLayer(rt, T, T, 'fused'); // one piece
  for (const [name, Backend] of [
    ['mha', MhaBackend],
    ['mqa', MqaBackend],
  ]) {
    const path = new Backend(layer, new Set(), plan.tables.numSlots, kernels);
    const piece = pieces[0];
    try {
      await path.step(piece, NULL_PROBE); // warm-up: shader compilation
      const walls = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        await path.step(piece, NULL_PROBE);
        walls.push(performance.now() - t0);
      }
      const wall = walls.sort((a, b) => a - b)[1];
      let out = null;
      let finished = null;
      // The recorder launches its stats programs before its first await, inside the timed function.
      const rec = probes
        ? new TensorRecorder(tf, { stats: rt.stats, filter: (st) => st !== 'logits' && st !== 'attn_probs' }, (x) => rt.hostView(x))
        : null;
      rec?.at(piece);
      const info = await tf.time(() => {
        out = tf.tidy(() => path.run(piece, rec ?? NULL_PROBE));
        finished = rec?.finish(name);
      });
      await out.data();
      await finished;
      out.dispose();
      const by = new Map();
      for (const part of (info.getExtraProfileInfo?.() ?? '').split(', ').filter(Boolean)) {
        const i = part.lastIndexOf(': ');
        const [prog, ms] = [part.slice(0, i), Number(part.slice(i + 2))];
        const e = by.get(prog) ?? { program: prog, ms: 0, count: 0 };
        e.ms += ms;
        e.count += 1;
        by.set(prog, e);
      }
      const programs = [...by.values()].sort((a, b) => b.ms - a.ms);
      results.push({ tokens: T, path: name, probes: probes ? 'on' : 'off', wallMs: wall, gpuMs: info.kernelMs, programs });
      console.log(
        `T=${T} ${name}: wall ${wall.toFixed(1)} ms, GPU ${info.kernelMs.toFixed(1)} ms in ` +
          `${programs.reduce((n, p) => n + p.count, 0)} programs`,
      );
      for (const p of programs.slice(0, 24))
        console.log(
          `  ${p.program.padEnd(36)} ${p.ms.toFixed(2).padStart(9)} ms  ×${String(p.count).padEnd(4)} ` +
            `${((100 * p.ms) / info.kernelMs).toFixed(1)}%`,
        );
    } catch (e) {
      results.push({ tokens: T, path: name, error: String(e.message ?? e) });
      console.log(`T=${T} ${name}: ${e.code ?? 'error'}: ${e.message ?? e}`);
    } finally {
      path.dispose();
    }
  }
  dispose();
}
const out = arg('out', null);
if (out) writeFileSync(out, JSON.stringify({ device: rt.device, results }, null, 1));
