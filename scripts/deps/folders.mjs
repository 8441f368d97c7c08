// The folder graph of src/: dependency-cruiser's module graph (with .dependency-cruiser.cjs's options:
// tsconfig.json, type-only imports counted) collapsed to folders. A file directly in src/ (src/errors.ts,
// src/index.ts) is a node of its own. Tests and test helpers are left out: a test may import anything,
// and a folder's imports are its code's. Used by check-folders.mjs and graph.mjs.
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
export const { WINGS, TEST } = require('./wings.cjs');
const isTest = (file) => new RegExp(TEST).test(file);

/** @param {string} file */
export const folderOf = (file) => (path.posix.dirname(file) === 'src' ? file : path.posix.dirname(file));

/** The wing a folder (or top-level file) of src/ belongs to, or undefined. */
export const wingOf = (folder) => WINGS.find((w) => new RegExp(w.path).test(folder.endsWith('.ts') ? folder : `${folder}/`));

/**
 * Cruises `roots` and returns the folders and the edges between them: "from\tto" → the file imports that
 * make the edge ("a.ts → b.ts", "(type-only)" marked), sorted.
 */
export async function folderGraph(roots = ['src']) {
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  delete options.ruleSet; // only the graph is wanted here; the rules are depcruise's own run's business
  delete options.validate;
  const tsConfig = extractTSConfig(options.tsConfig?.fileName ?? 'tsconfig.json');
  const { output } = await cruise(roots, { ...options, outputType: 'json' }, undefined, { tsConfig });
  const result = typeof output === 'string' ? JSON.parse(output) : output;
  const folders = new Set();
  const edges = new Map();
  for (const mod of result.modules) {
    if (isTest(mod.source) || !mod.source.startsWith('src/')) continue;
    folders.add(folderOf(mod.source));
    for (const dep of mod.dependencies) {
      if (dep.couldNotResolve || dep.coreModule || !dep.resolved.startsWith('src/') || isTest(dep.resolved)) continue;
      const [from, to] = [folderOf(mod.source), folderOf(dep.resolved)];
      if (from === to) continue;
      const key = `${from}\t${to}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${mod.source} → ${dep.resolved}${dep.dependencyTypes.includes('type-only') ? ' (type-only)' : ''}`);
    }
  }
  for (const list of edges.values()) list.sort();
  return { folders, edges };
}

/** The pairs of folders that import each other, each with its imports both ways. */
export function mutualPairs(edges) {
  const pairs = [];
  for (const [key, there] of edges) {
    const [a, b] = key.split('\t');
    if (a < b && edges.has(`${b}\t${a}`)) pairs.push({ a, b, there, back: edges.get(`${b}\t${a}`) });
  }
  return pairs.sort((x, y) => (x.a + x.b).localeCompare(y.a + y.b));
}
