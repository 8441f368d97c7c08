// Renders bench/selftest/results.json (mla-diff selftest --format json) as the per-fault tables of
// results.md: renderSelftest of the JSON, plain text, between the markers of its "Per fault" section.
// Usage: npm run build && node bench/selftest/render.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

if (process.argv.includes('--help')) {
  console.log('Usage: npm run build && node bench/selftest/render.mjs  (re-renders the per-fault tables of bench/selftest/results.md)');
  process.exit(0);
}
const require = createRequire(import.meta.url);
const { renderSelftest, PLAIN } = require('mla-diff');
const MD = 'bench/selftest/results.md';
const BEGIN = '<!-- per-fault: rendered from results.json by bench/selftest/render.mjs -->';
const END = '<!-- /per-fault -->';
const text = renderSelftest(JSON.parse(readFileSync('bench/selftest/results.json', 'utf8')), PLAIN);
const md = readFileSync(MD, 'utf8');
const [a, b] = [md.indexOf(BEGIN), md.indexOf(END)];
if (a < 0 || b < a) throw new Error(`${MD} lacks the per-fault markers`);
writeFileSync(MD, `${md.slice(0, a + BEGIN.length)}\n\`\`\`text\n${text.trimEnd()}\n\`\`\`\n${md.slice(b)}`);
