#!/usr/bin/env node
// The module-graph picture, docs/architecture.svg (`npm run graph`): src/'s folders as boxes, the wings as
// clusters (bottom: base, top: surface), arrows from importing to imported (tests left out). Red arrows break
// a rule: a wing importing one above it, or two folders importing each other. src/index.ts (the public API)
// gets one dashed arrow per wing it draws on. Prints Graphviz DOT, or with --svg runs graphviz's
// `dot -Tsvg` on it (graphviz: a dev tool, not needed by CI). Usage: node scripts/deps/graph.mjs [--all] [--svg FILE]
import { spawnSync } from 'node:child_process';
import { folderGraph, mutualPairs, WINGS, wingOf } from './folders.mjs';

const { folders, edges } = await folderGraph(['src']);
const mutual = new Set(mutualPairs(edges).flatMap(({ a, b }) => [`${a}\t${b}`, `${b}\t${a}`]));
const rank = (f) => WINGS.indexOf(wingOf(f));
const q = (s) => JSON.stringify(s);
const API = 'src/index.ts';
const all = process.argv.includes('--all');

const out = [
  'digraph "mla-diff" {',
  '  rankdir=TB; compound=true; ranksep=0.5; nodesep=0.3; outputorder=edgesfirst;',
  `  label=${q(`mla-diff: src/ by folder and wing${all ? '' : ' (between wings: one arrow, labelled: imports)'}; red: a broken rule`)};`,
  '  labelloc=b; fontname=Helvetica; fontsize=11;',
  '  node [shape=box, style="rounded,filled", fillcolor="#fff8d0", color="#806000", fontname=Helvetica, fontsize=10, height=0.3];',
  '  edge [color="#00000055", arrowsize=0.6];',
];
for (const wing of WINGS) {
  const members = [...folders].filter((f) => wingOf(f) === wing && f !== API).sort();
  if (members.length === 0) continue;
  out.push(`  subgraph ${q(`cluster_${wing.name}`)} {`);
  out.push(
    `    label=${q(`${wing.name}: ${wing.what}`)}; labeljust=l; labelloc=t;`,
    '    style="rounded,filled"; fillcolor="#f4f4f4"; color="#999999"; fontsize=11;',
  );
  const prefix = wing.path.replace(/^\^/, '').replace(/\\/g, '').replace(/\(.*$/, '');
  for (const f of members)
    out.push(`    ${q(f)} [label=${q(f.startsWith(prefix) && f !== prefix ? f.slice(prefix.length) || f : f.replace(/^src\//, ''))}];`);
  out.push('  }');
}
const strays = [...folders].filter((f) => !wingOf(f));
for (const f of strays) out.push(`  ${q(f)} [fillcolor="#ffd0d0", color=red, label=${q(`${f} (no wing)`)}];`);
if (folders.has(API)) out.push(`  ${q(API)} [label="index.ts: the public API", fillcolor="#d8f0ff", color="#2060a0"];`);

// Arrows: inside a wing, folder to folder; between wings, one arrow per pair of wings (ltail/lhead: cluster to
// cluster; its width grows with the imports it stands for), unless --all: then every folder arrow is drawn.
// An arrow against the rules is always drawn folder to folder, in red.
const apiWings = new Map();
const across = new Map(); // "wingA\twingB" → { from, to, imports }
const width = (n) => Math.min(3.5, 0.6 + Math.log2(n) / 2).toFixed(1);
for (const [key, imports] of [...edges].sort()) {
  const [from, to] = key.split('\t');
  const [wf, wt] = [wingOf(from), wingOf(to)];
  if (from === API) {
    if (wt && !apiWings.has(wt.name)) apiWings.set(wt.name, to);
    continue;
  }
  const bad = mutual.has(key) || !wf || !wt || rank(to) > rank(from);
  if (bad || all || wf === wt) {
    const style = bad ? ', color=red, fontcolor=red' : '';
    out.push(`  ${q(from)} -> ${q(to)} [penwidth=${width(imports.length)}${style}, tooltip=${q(imports.join('\n'))}];`);
    continue;
  }
  const wk = `${wf.name}\t${wt.name}`;
  const a = across.get(wk) ?? { from, to, imports: [] };
  a.imports.push(...imports);
  across.set(wk, a);
}
for (const [wk, { from, to, imports }] of across) {
  const [wf, wt] = wk.split('\t');
  const attrs = [`ltail=${q(`cluster_${wf}`)}`, `lhead=${q(`cluster_${wt}`)}`, `penwidth=${width(imports.length)}`];
  attrs.push(
    `label=${q(String(imports.length))}`,
    'fontsize=8',
    'fontcolor="#666666"',
    `tooltip=${q(`${wf} → ${wt}: ${imports.length} imports`)}`,
  );
  out.push(`  ${q(from)} -> ${q(to)} [${attrs.join(', ')}];`);
}
for (const [name, to] of apiWings) out.push(`  ${q(API)} -> ${q(to)} [lhead=${q(`cluster_${name}`)}, style=dashed, color="#2060a088"];`);
out.push('}');

const svgAt = process.argv.indexOf('--svg');
if (svgAt < 0) {
  console.log(out.join('\n'));
} else {
  const r = spawnSync('dot', ['-Tsvg', '-o', process.argv[svgAt + 1]], {
    input: `${out.join('\n')}\n`,
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  if (r.error) {
    console.error(`graph: cannot run graphviz's dot (${r.error.message}); install it: apt-get install -y graphviz`);
    process.exit(1);
  }
  process.exit(r.status ?? 1);
}
