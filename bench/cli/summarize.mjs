// Self time of a V8 .cpuprofile (node --cpu-prof) by file and by function: where a CLI run's JavaScript time goes.
// GPU waits show as (idle) or (program); garbage collection as (garbage collector).
//   node bench/cli/summarize.mjs out/cli-profile/cpu-1.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cli/summarize.mjs FILE.cpuprofile [--top N]');
  process.exit(2);
}
const top = Number(rest[rest.indexOf('--top') + 1]) || 25;
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** The file of a call frame, shortened to the package or the project folder. */
const where = (url) => {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0)
    return url
      .slice(nm + 13)
      .split('/')
      .slice(0, url.slice(nm + 13).startsWith('@') ? 2 : 1)
      .join('/');
  const d = url.indexOf('/dist/');
  return d >= 0 ? url.slice(d + 1) : url.replace(/^file:\/\//, '');
};
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
const files = new Map();
const fns = new Map();
for (const [id, us] of self) {
  const f = byId.get(id).callFrame;
  add(files, where(f.url), us);
  add(fns, `${f.functionName || '(anonymous)'} ${where(f.url)}:${f.lineNumber + 1}`, us);
}
const show = (title, m) => {
  console.log(`\n${title} (self time, of ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${(us / 1e3).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
};
show('by file', files);
show('by function', fns);
