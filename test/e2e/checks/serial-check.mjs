// A large case's pieces with context run their paths one at a time, the buffer pool settling between them
// (step-paths.ts `serial`, Runtime.settle, webgpu-pool.ts), on the GPU's own runtime: a scenario with context
// chunks, a decode, a prefix-cache hit and a fault, run as a small case (paths pipelined) and as a large one
// (statsOnlyFrom 0: values no pair reads not kept, pieces with context serial), must say the same thing: verdict,
// diffs, detail and replay; settle must run between paths; nothing may leak. Plain node on the built package.
// Usage: node test/e2e/checks/serial-check.mjs [--device webgpu] [--out DIR]. Exit status 1 on a failure or a leak.
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arg } from './check-utils.mjs';

const require = createRequire(import.meta.url);
const { selectRuntime, parseScenario, runScenario } = require('mla-diff');

const rt = await selectRuntime(arg('device', 'webgpu'));
console.log(`device: ${rt.device.description}`);
const yaml = [
  'name: serial-check',
  'model: {preset: tiny}',
  'weights: {synthetic: {seed: 5}}',
  'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3}',
  'requests:',
  '  - {name: chat, steps: [{prefill: 12, chunk: 4}, {decode: 2}]}',
  '  - {name: hit, start_step: 1, steps: [{cached: 4}, {prefill: 3}]}',
  'reference: off',
  'faults: [{path: mha, fault: lse-base-2}]',
].join('\n');
const s = parseScenario(yaml, 'serial-check.yaml');
let settles = 0;
const counted = rt.settle && { ...rt, settle: async () => void (settles++, await rt.settle()) };
// What a case says, without what the run measured of itself.
const said = (c) => {
  const { seconds, memory, ...trace } = c.trace;
  return JSON.stringify({ verdict: c.comparison.verdict, trace, detail: c.detail, replay: c.replay && { ...c.replay, seconds: 0 } });
};
const tensors = rt.tf.memory().numTensors;
const piped = (await runScenario(s, { runtime: rt, toolVersion: 'check', worker: false })).cases[0];
const serial = (await runScenario(s, { runtime: counted ?? rt, toolVersion: 'check', worker: false, statsOnlyFrom: 0 })).cases[0];
const leaked = rt.tf.memory().numTensors - tensors;
const checks = {
  diverges: piped.comparison.verdict === 'diverge',
  same: said(piped) === said(serial),
  settled: !rt.settle || settles > 0,
  noLeak: leaked === 0,
};
const passed = Object.values(checks).every(Boolean);
const out = arg('out', 'out/serial-check');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'serial-check.json'), JSON.stringify({ passed, device: rt.device, settles, leaked, checks }, null, 2));
console.log(`${passed ? 'PASS' : 'FAIL'} ${JSON.stringify(checks)} settles ${settles}`);
process.exit(passed ? 0 : 1);
