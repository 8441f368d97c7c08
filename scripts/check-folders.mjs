#!/usr/bin/env node
// No two folders import each other (issue 19, point 4). dependency-cruiser's rules judge one module at a
// time, so its no-circular cannot see a folder-level circle made of acyclic file edges (a/x → b/y and
// b/z → a/w). This cruises src/ with .dependency-cruiser.cjs's options, collapses every module to its
// folder (a file directly in src/, e.g. src/errors.ts or src/index.ts, is a node of its own) and fails
// listing each pair of folders that import each other, with one import each way and how many there are.
//
// Tests (*.test.ts) and test helpers (*/test-utils/) are left out: a test may import anything, and its
// folder's imports are its code's. Usage: node scripts/check-folders.mjs [roots…] (default: src).
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import path from 'node:path';

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src'];
const TEST = /\.test\.ts$|(^|\/)test-utils\//;

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
// Only the graph is wanted here; the rules are depcruise's own run's business.
delete options.ruleSet;
delete options.validate;
const tsConfig = extractTSConfig(options.tsConfig?.fileName ?? 'tsconfig.json');
const { output } = await cruise(roots, { ...options, outputType: 'json' }, undefined, { tsConfig });
const result = typeof output === 'string' ? JSON.parse(output) : output;

/** @param {string} file */
const folderOf = (file) => (path.posix.dirname(file) === 'src' ? file : path.posix.dirname(file));

/** Edges between folders: "from\tto" → the file imports that make it, sorted. */
const edges = new Map();
for (const mod of result.modules) {
  if (TEST.test(mod.source) || !mod.source.startsWith('src/')) continue;
  for (const dep of mod.dependencies) {
    if (dep.couldNotResolve || dep.coreModule || !dep.resolved.startsWith('src/') || TEST.test(dep.resolved)) continue;
    const [from, to] = [folderOf(mod.source), folderOf(dep.resolved)];
    if (from === to) continue;
    const key = `${from}\t${to}`;
    if (!edges.has(key)) edges.set(key, []);
    edges.get(key).push(`${mod.source} → ${dep.resolved}${dep.dependencyTypes.includes('type-only') ? ' (type-only)' : ''}`);
  }
}

const pairs = [];
for (const [key, there] of edges) {
  const [a, b] = key.split('\t');
  if (a < b && edges.has(`${b}\t${a}`)) pairs.push({ a, b, there: there.sort(), back: edges.get(`${b}\t${a}`).sort() });
}
pairs.sort((x, y) => (x.a + x.b).localeCompare(y.a + y.b));

const folders = new Set([...edges.keys()].flatMap((k) => k.split('\t')));
if (pairs.length === 0) {
  console.log(`check-folders: ok, no two of ${folders.size} folders import each other (${edges.size} folder edges)`);
  process.exit(0);
}
console.error(`check-folders: ${pairs.length} pair(s) of folders import each other:`);
for (const { a, b, there, back } of pairs) {
  console.error(`  ${a} ⇄ ${b}`);
  console.error(`    ${there[0]}${there.length > 1 ? `   (+${there.length - 1} more)` : ''}`);
  console.error(`    ${back[0]}${back.length > 1 ? `   (+${back.length - 1} more)` : ''}`);
}
process.exit(1);
