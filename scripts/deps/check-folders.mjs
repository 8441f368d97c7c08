#!/usr/bin/env node
// No two folders import each other (issue 19, point 4). dependency-cruiser's rules judge one module at a
// time, so its no-circular cannot see a folder-level circle made of acyclic file edges (a/x → b/y and
// b/z → a/w). This collapses src/'s module graph to folders (folders.mjs) and fails listing each pair of
// folders that import each other, with one import each way and how many there are.
// Usage: node scripts/deps/check-folders.mjs [roots…] (default: src).
import { folderGraph, mutualPairs } from './folders.mjs';

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['src'];
const { folders, edges } = await folderGraph(roots);
const pairs = mutualPairs(edges);
if (pairs.length === 0) {
  console.log(`check-folders: ok, no two of ${folders.size} folders import each other (${edges.size} folder edges)`);
  process.exit(0);
}
const more = (list) => (list.length > 1 ? `   (+${list.length - 1} more)` : '');
console.error(`check-folders: ${pairs.length} pair(s) of folders import each other:`);
for (const { a, b, there, back } of pairs) {
  console.error(`  ${a} ⇄ ${b}`);
  console.error(`    ${there[0]}${more(there)}`);
  console.error(`    ${back[0]}${more(back)}`);
}
process.exit(1);
