// One long run's figures from bench/long/run.sh's files: node bench/long/summarize.mjs out/bench-long/<name>
import { existsSync, readFileSync } from 'node:fs';

const base = process.argv[2];
const GiB = 2 ** 30;
const wall = Object.fromEntries(
  readFileSync(`${base}.wall.txt`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]),
);
const gpu = existsSync(`${base}.gpu-mib.txt`) ? readFileSync(`${base}.gpu-mib.txt`, 'utf8').split('\n').filter(Boolean).map(Number) : [];
const lines = [`${base}: rc ${wall.rc}, wall ${wall.wall_s} s, max RSS ${wall.max_rss_gib} GiB`];
const gib = (mib) => (mib / 1024).toFixed(1);
if (gpu.length) lines.push(`  GPU memory in use at most: ${gib(Math.max(...gpu))} GiB (idle ${gib(gpu[0])} GiB)`);
if (existsSync(`${base}.json`)) {
  const r = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const s = r.seconds;
  lines.push(`  outcome ${r.outcome}, verdict ${r.verdict}; seconds: weights ${s.weights.toFixed(2)}, total ${s.total.toFixed(2)}`);
  for (const c of r.cases) {
    const m = c.trace.memory;
    const paths = Object.entries(c.trace.seconds)
      .map(([p, x]) => `${p} ${x.toFixed(2)} s`)
      .join(', ');
    lines.push(`  case ${c.trace.name}: ${c.trace.pieces.length} pieces, ${c.trace.diffs.length} diffs; ${paths}`);
    if (m)
      lines.push(
        `    memory: tfjs peak ${(m.peakBytes / GiB).toFixed(1)} GiB, values held at once ${(m.heldBytes / GiB).toFixed(1)} GiB ` +
          `of the schedule's ${(m.valueBytes / GiB).toFixed(1)} GiB, pieces re-run ${m.rerunPieces}`,
      );
    const f = c.comparison.firstDivergence;
    const replayed = c.replay?.results.length ?? 0;
    if (f) lines.push(`    first divergence ${f.stage} at step ${f.step}, culprit ${f.culprit}; replay ${replayed} records`);
  }
}
console.log(lines.join('\n'));
