// Loads one layer of a checkpoint as `mla-diff run` does (header, config, every attention tensor
// dequantized to float32, the norms, 5 embedding rows) in a fresh process, and prints time, peak
// RSS and the bytes read from the file. Usage: node bench/checkpoint/load-one.mjs FILE LAYER [gguf|safetensors]
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { RandomAccessFile, openSource, LINEAR_NAMES, NORM_NAMES, linearShape } = api;

const [file, layer, kind] = [process.argv[2], Number(process.argv[3] ?? 0), process.argv[4] ?? 'gguf'];
let bytes = 0;
let reads = 0;
const read = RandomAccessFile.prototype.read;
RandomAccessFile.prototype.read = function (offset, length, what, dst) {
  bytes += length;
  reads++;
  return read.call(this, offset, length, what, dst);
};

const rss0 = process.resourceUsage().maxRSS;
const t0 = performance.now();
const src = openSource({ kind, file, layer, overrides: {} });
const tOpen = performance.now();
let params = 0;
for (const name of LINEAR_NAMES) {
  const [r, c] = linearShape(src.config, name);
  const dst = new Float32Array(r * c);
  src.block(name, [0, r], [0, c], 'out_in', dst);
  params += r * c;
}
for (const n of NORM_NAMES) params += src.norm(n).length;
src.embeddings([0, 1, 2, 3, 4]);
const t1 = performance.now();
console.log(
  JSON.stringify({
    file,
    layer,
    fileBytes: RandomAccessFile.open(file).size,
    params,
    openSeconds: (tOpen - t0) / 1000,
    loadSeconds: (t1 - t0) / 1000,
    bytesRead: bytes,
    reads,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
    baseRssMiB: rss0 / 1024,
  }),
);
