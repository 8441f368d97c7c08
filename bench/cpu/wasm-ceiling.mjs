// Why the CPU target of issue 8 (T = 512, both paths, ≤ 2× numpy on the same machine) is out of reach
// on tfjs-backend-wasm: a bound from two measurements already in bench/cpu/results.json, no new timing.
//   - gemm-ceiling-512 (node bench/cpu/gemm-ceiling.mjs --tokens 512): the five projections of one path
//     at T = 512 through tf.matMul on wasm (one thread, its faster operand order) and through numpy on
//     the same machine.
//   - long (node bench/cpu/long.mjs): numpy's whole layer, each path, at T = 512.
// The bound: the products of both paths (their FLOPs counted from the GLM-5 shapes) at the wasm rate
// measured, on two threads with perfect scaling (tfjs-backend-wasm runs one in Node), against twice
// numpy's two layers: if the products alone take longer, nothing else can bring the layer under 2×.
// Then what meets it: the same products through the host BLAS (gemm-ceiling's blasMs) and the whole
// layer so measured (issue8-512, node bench/cpu/issue8.mjs), where those exist.
// The computation is the wasm-ceiling section of bench/cpu/results.mjs; this script re-renders
// bench/cpu/results.md and prints that section.
// Usage: node bench/cpu/wasm-ceiling.mjs
import { load, rerender } from './results.mjs';

if (process.argv.includes('--help')) {
  console.log('Usage: node bench/cpu/wasm-ceiling.mjs  (re-renders bench/cpu/results.md, prints its wasm-ceiling section)');
  process.exit(0);
}
const doc = load();
for (const k of ['gemm-ceiling-512', 'long']) if (!doc[k]) throw new Error(`bench/cpu/results.json has no '${k}'`);
const md = rerender(doc);
const start = md.indexOf('<a id="wasm-ceiling">');
process.stdout.write(md.slice(start, md.indexOf('<a id="', start + 1)));
