// Renders a saved JSON report (mla-diff run --format json --out F) as the terminal table, plain text.
// Usage: node bench/render.mjs report.json > report.txt
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { renderRun, PLAIN } = api;
const doc = JSON.parse(readFileSync(process.argv[2], 'utf8'));
for (const r of doc.runs ?? [doc]) console.log(renderRun(r, PLAIN));
