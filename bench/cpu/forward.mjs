// One path of one GLM-5 layer (all 64 heads), one causal prefill of T tokens, on a tfjs device
// (wasm by default), driven through MlaBackend.step as run-case does: weights built once, one
// warm-up, the median of --reps runs with probes off, then one run with every stage recorded.
// Prints one JSON line (times, peak RSS of this process, |out|); with --profile the slowest
// kernels of one probes-off run. One path per process so that the peak RSS is the path's own.
// Usage: node bench/cpu/forward.mjs --path mha|mqa --tokens 512 [--reps 3 (0: time the first run)] [--probes on|off] [--device wasm]
// [--profile 12] [--package DIR]
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(import.meta.url);
const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
// --package: the root of another built checkout of mla-diff (before/after); by default this package
const api = arg('package') ? require(resolve(arg('package'))) : require('mla-diff');
const {
  selectRuntime,
  SyntheticWeights,
  uploadLayer,
  disposeLayer,
  MhaBackend,
  MqaBackend,
  DEFAULT_KERNELS,
  TensorRecorder,
  NULL_PROBE,
  RETAINED,
  preset,
  syntheticIds,
} = api;

const pathName = arg('path', 'mha');
const T = Number(arg('tokens', '512'));
const reps = Number(arg('reps', '3'));
const probes = arg('probes', 'on');
const profileTop = Number(arg('profile', '0'));
const cfg = preset(arg('preset', 'glm-5'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const rt = await selectRuntime(arg('device', 'wasm'));
const tf = rt.tf;
const source = new SyntheticWeights(cfg, 0);
const ids = syntheticIds(T, cfg.vocab_size, 0);
const slots = Int32Array.from(ids, (_, i) => i);
const piece = {
  step: 0,
  request: 'r',
  kind: 'prefill',
  route: pathName,
  start: 0,
  ids,
  positions: ids.map((_, i) => i),
  embeddings: source.embeddings(ids),
  slots,
  historySlots: slots,
  chunks: [],
  chunkSlots: [],
};
let t = performance.now();
const layer = uploadLayer(rt, source, { start: 0, count: cfg.num_attention_heads }, T);
const uploadMs = performance.now() - t;
const Backend = pathName === 'mha' ? MhaBackend : MqaBackend;
const path = new Backend(layer, new Set(), T, DEFAULT_KERNELS);
t = performance.now();
const out = await path.step(piece, NULL_PROBE, true); // warm-up; with --reps 0 the one timed run
const times = reps ? [] : [performance.now() - t];
for (let r = 0; r < reps; r++) {
  t = performance.now();
  await path.step(piece, NULL_PROBE);
  times.push(performance.now() - t);
}
let probesOnMs = null;
if (probes === 'on') {
  const rec = new TensorRecorder(tf, { retain: RETAINED, stats: rt.stats }, (x) => rt.hostView(x));
  rec.at(piece);
  t = performance.now();
  await path.step(piece, rec);
  const recorded = await rec.finish(pathName);
  probesOnMs = performance.now() - t;
  for (const c of recorded.captured.values()) if (c.where === 'device') c.tensor.dispose();
}
let profile;
if (profileTop) {
  const info = await tf.profile(async () => {
    await path.step(piece, NULL_PROBE);
  });
  const byKernel = new Map();
  for (const k of info.kernels) {
    const key = `${k.name} ${JSON.stringify(k.inputShapes)}`;
    const e = byKernel.get(key) ?? { kernel: key, ms: 0, n: 0 };
    e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    e.n += 1;
    byKernel.set(key, e);
  }
  profile = [...byKernel.values()].sort((a, b) => b.ms - a.ms).slice(0, profileTop);
}
path.dispose();
disposeLayer(layer);
let aa = 0;
for (const x of out) aa += x * x;
const row = {
  path: pathName,
  tokens: T,
  device: rt.device,
  uploadMs,
  probesOffMs: median(times),
  probesOffAllMs: times,
  probesOnMs,
  outNorm: Math.sqrt(aa),
  maxRssMiB: process.resourceUsage().maxRSS / 1024,
  profile,
};
console.log(JSON.stringify(row));
process.exit(0);
