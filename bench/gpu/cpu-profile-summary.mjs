// Groups a V8 .cpuprofile's samples (node --cpu-prof) by function (self time) and by package
// (tfjs-core, tfjs-backend-webgpu, the webgpu/Dawn binding, mla-diff's built modules, node internals, GC).
// --under NAME keeps only the samples with a frame of that function on their stack (e.g. run: the paths' step encoding);
// --exclude a,b drops those with a frame of a or b (e.g. compileProgram: the first steps' shader compiles).
// Usage: node bench/gpu/cpu-profile-summary.mjs file.cpuprofile [--under run] [--exclude compileProgram] [--top 40] [--callers FN]
// [--out f.json]
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const under = arg('under', null);
const exclude = new Set((arg('exclude', '') || '').split(',').filter(Boolean));
const keep = (id) => {
  let found = !under;
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const f = byId.get(n).callFrame.functionName;
    if (exclude.has(f)) return false;
    if (f === under) found = true;
  }
  return found;
};
const dt = new Map(); // node id → µs
for (let i = 0; i < prof.samples.length; i++) {
  if ((under || exclude.size) && !keep(prof.samples[i])) continue;
  dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
}
const pkg = (url, fn) => {
  if (fn === '(garbage collector)') return 'gc';
  if (fn === '(idle)' || fn === '(program)') return fn;
  if (/tfjs-backend-webgpu/.test(url)) return 'tfjs-backend-webgpu';
  if (/tfjs-core/.test(url)) return 'tfjs-core';
  if (/node_modules\/webgpu/.test(url) || (!url && fn)) return url ? 'webgpu (Dawn binding)' : 'native';
  if (/\.js$/.test(url) && !/node_modules\//.test(url) && !/^node:/.test(url)) return 'mla-diff'; // the built package's modules
  if (/^node:/.test(url)) return 'node';
  return url ? url.split('/').slice(-2).join('/') : 'other';
};
const fns = new Map(),
  pkgs = new Map();
let total = 0;
for (const [id, us] of dt) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-1)[0]}:${cf.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const p = pkg(cf.url, cf.functionName);
  pkgs.set(p, (pkgs.get(p) ?? 0) + us);
  total += us;
}
const top = Number(arg('top', '40'));
const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
console.log(`total ${(total / 1000).toFixed(1)} ms sampled`);
for (const [p, us] of sorted(pkgs))
  console.log(`  ${p.padEnd(28)} ${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`);
console.log('self time by function:');
for (const [f, us] of sorted(fns).slice(0, top))
  console.log(`  ${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${f}`);
// --callers FN: the call chains (8 frames up) of FN's samples, heaviest first.
const callersOf = arg('callers', null);
if (callersOf) {
  const chains = new Map();
  for (const [id, us] of dt) {
    if ((byId.get(id).callFrame.functionName || '(anonymous)') !== callersOf) continue;
    const st = [];
    for (let n = parent.get(id); n !== undefined && st.length < Number(arg('depth', '8')); n = parent.get(n)) {
      const f = byId.get(n).callFrame;
      st.push(`${f.functionName || '(anonymous)'}:${f.url.split('/').slice(-1)[0]}:${f.lineNumber + 1}`);
    }
    const k = st.join(' < ');
    chains.set(k, (chains.get(k) ?? 0) + us);
  }
  console.log(`callers of ${callersOf}:`);
  for (const [k, us] of sorted(chains).slice(0, 12)) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`);
}
const out = arg('out', null);
if (out)
  writeFileSync(
    out,
    JSON.stringify(
      {
        file,
        under,
        totalMs: total / 1000,
        packages: Object.fromEntries(sorted(pkgs).map(([k, v]) => [k, v / 1000])),
        functions: sorted(fns)
          .slice(0, 200)
          .map(([k, v]) => ({ fn: k, ms: v / 1000 })),
      },
      null,
      1,
    ),
  );
