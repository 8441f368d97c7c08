// One float64 reference run on its own, in this process (bench/reference/run.mjs starts one per
// measurement, so that each peak RSS is its own): GLM-5, all 64 heads, one causal prefill of T
// synthetic tokens, every stage recorded (--no-scores: neither logits nor attn_probs, as under fused
// attention). Prints one JSON line: seconds, the GEMM, the estimate's cost and seconds, peak RSS.
// Usage: npm run build && node bench/reference/one.mjs --t 512 [--gemm auto|blas|pool|js] [--no-scores]
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { parseScenario, scenarioReference, runReferenceJob, referenceSeconds } = require('mla-diff');

const arg = (n, d) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const T = Number(arg('t', '512'));
const gemm = arg('gemm', 'auto');
const scores = !process.argv.includes('--no-scores');

const s = parseScenario(
  ['version: 1', 'name: reference-bench', 'model: {preset: glm-5}', 'weights: {synthetic: {seed: 0}}', `prompt: {length: ${T}}`]
    .concat(['reference: on', 'cases: [{name: all-heads}]'])
    .join('\n'),
);
const { job, cost } = scenarioReference(s, { gemm, scores });
const t0 = performance.now();
const r = await runReferenceJob(job);
const wall = (performance.now() - t0) / 1000;
const kind = /^cblas_dgemm/.test(r.gemm) ? 'blas' : /worker/.test(r.gemm) ? 'pool' : 'js';
const threads = Number(/(\d+) (?:worker )?threads?/.exec(r.gemm)?.[1] ?? availableParallelism());
console.log(
  JSON.stringify({
    T,
    scores,
    gemm: r.gemm,
    seconds: r.seconds,
    wall,
    tmac: cost.macs / 1e12,
    gmacPerS: cost.macs / 1e9 / r.seconds,
    estimate: referenceSeconds(cost, { kind, threads }),
    estimateGiB: cost.bytes / 2 ** 30,
    rssGiB: (process.resourceUsage().maxRSS * 1024) / 2 ** 30,
  }),
);
