// Times the synthesis of GLM-5's linear weights at all 64 heads, each into a fresh Float32Array as uploadLayer's
// hostFilled makes it: SyntheticWeights.block as the run calls it (threads by core count and size) against the
// plain single-thread fill of the same grid, and checks that the two agree bit for bit.
// Usage: npm run build && node bench/cli/synthesis.mjs [in_out|out_in] [repeats]   (webgpu asks for in_out, wasm out_in)
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';

const require = createRequire(import.meta.url);
const { preset } = require('../../dist/core/model/presets.js');
const { LINEAR_NAMES, linearShape, sliceRanges } = require('../../dist/core/weights/layer.js');
const { streamKey } = require('../../dist/core/weights/normal.js');
const { fillGrid } = require('../../dist/core/weights/grid.js');
const { SyntheticWeights, syntheticGrid } = require('../../dist/core/weights/synthetic.js');

const layout = process.argv[2] ?? 'in_out';
const repeats = Number(process.argv[3] ?? 3);
const config = preset('glm-5');
const heads = { start: 0, count: config.num_attention_heads };
const source = new SyntheticWeights(config, 0);
const weights = LINEAR_NAMES.map((name) => ({ name, ...sliceRanges(config, name, heads) }));
const size = ({ rows, cols }) => (rows[1] - rows[0]) * (cols[1] - cols[0]);

const block = ({ name, rows, cols }) => {
  const dst = new Float32Array(size({ rows, cols }));
  source.block(name, rows, cols, layout, dst);
  return dst;
};
const plain = ({ name, rows, cols }) => {
  const dst = new Float32Array(size({ rows, cols }));
  const fanIn = linearShape(config, name)[1];
  fillGrid(syntheticGrid(streamKey(0, name), rows, cols, layout, fanIn, 1 / Math.sqrt(fanIn)), dst);
  return dst;
};
const time = (fill) => {
  const t0 = performance.now();
  for (const w of weights) fill(w);
  return (performance.now() - t0) / 1000;
};
const elements = weights.reduce((s, w) => s + size(w), 0);
console.log(`${(elements / 1e6).toFixed(1)} M elements, layout ${layout}, ${availableParallelism()} cores`);
for (const [label, fill] of [
  ['plain (1 thread)', plain],
  ['SyntheticWeights.block', block],
]) {
  const seconds = Array.from({ length: repeats }, () => time(fill));
  console.log(`${label}: ${seconds.map((s) => s.toFixed(3)).join(' ')} s`);
}
const same = weights.every((w) => Buffer.from(block(w).buffer).equals(Buffer.from(plain(w).buffer)));
console.log(same ? 'bit-identical: yes' : 'bit-identical: NO');
if (!same) process.exitCode = 1;
