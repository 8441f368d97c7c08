// Preload (node -r) for a bench's CLI process: counts every RandomAccessFile.read (the only way mla-diff reads a
// checkpoint) and prints the bytes, the reads and the peak RSS as one line on stderr when the process exits.
const { RandomAccessFile } = require('mla-diff');

let bytes = 0;
let reads = 0;
const read = RandomAccessFile.prototype.read;
RandomAccessFile.prototype.read = function (offset, length, what, dst) {
  bytes += length;
  reads++;
  return read.call(this, offset, length, what, dst);
};
process.on('exit', () => {
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stderr.write(`\nmla-diff-bench-reads ${JSON.stringify({ bytes, reads, maxRssMiB })}\n`);
});
