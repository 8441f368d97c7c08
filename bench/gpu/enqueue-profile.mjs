// Where the host's time goes while it encodes one step (T tokens, 64 heads, one piece):
//   node bench/gpu/enqueue-profile.mjs --device webgpu --tokens 512 [--steps 40] [--prof-dir DIR]
// Each path steps 3 times (shader compiles, buffer pool growth) and then --steps times with every
// stage recorded, then the same with nothing recorded; prints the median enqueue (tf.tidy(path.run)
// returning) and wait. With --prof-dir, V8's CPU profiler (node:inspector) samples the timed steps
// only, one DIR/enqueue-T-path-on|off.cpuprofile per path and mode; bench/gpu/cpu-profile-summary.mjs
// groups the samples by function and by package.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arg, glmLayer, warmUp } from './layer-common.mjs';

const require = createRequire(import.meta.url);
const api = require('mla-diff');

const { selectRuntime, MhaBackend, MqaBackend, TensorRecorder, NULL_PROBE } = api;

const T = Number(arg('tokens', '512'));
const steps = Number(arg('steps', '40'));
const rt = await selectRuntime(arg('device', 'auto'));
const { tf } = rt;
await warmUp(rt);
const { plan, layer, kernels, pieces, dispose } = glmLayer(rt, T, T, 'fused');
const piece = pieces[0];
const filter = (st) => st !== 'logits' && st !== 'attn_probs';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const profDir = arg('prof-dir', null);
const session = profDir ? new Session() : null;
if (session) {
  mkdirSync(profDir, { recursive: true });
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
}
for (const [name, Backend] of [
  ['mha', MhaBackend],
  ['mqa', MqaBackend],
]) {
  const path = new Backend(layer, new Set(), plan.tables.numSlots, kernels);
  for (const on of [true, false]) {
    const enq = [],
      wait = [];
    for (let i = 0; i < steps + 3; i++) {
      if (i === 3 && session) await session.post('Profiler.start');
      const rec = on ? new TensorRecorder(tf, { stats: rt.stats, filter }, (x) => rt.hostView(x)) : null;
      rec?.at(piece);
      const t0 = performance.now();
      const out = tf.tidy(() => path.run(piece, rec ?? NULL_PROBE));
      const t1 = performance.now();
      const one = tf.slice(out, [0, 0], [1, 1]);
      await one.data();
      const t2 = performance.now();
      tf.dispose([out, one]);
      if (rec) await rec.finish(name);
      if (i >= 3) {
        enq.push(t1 - t0);
        wait.push(t2 - t1);
      }
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`${profDir}/enqueue-${T}-${name}-${on ? 'on' : 'off'}.cpuprofile`, JSON.stringify(profile));
    }
    console.log(
      `T=${T} ${name} probes ${on ? 'on' : 'off'}: enqueue ${median(enq).toFixed(2)} ms, wait ${median(wait).toFixed(2)} ms ` +
        `(medians of ${steps})`,
    );
  }
  path.dispose();
}
dispose();
