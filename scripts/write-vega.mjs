// Compiles the HTML report's Vega-Lite plot specs (src/surface/reports/html-specs.ts, built) to Vega
// templates in src/surface/reports/html-vega.json: `npm run vega` after changing a spec. vega-lite
// is a dev dependency only; the installed package renders from these templates.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { compile } = require('vega-lite');
const prettier = require('prettier');
const { errSpec, headSpec, normSpec } = require('../dist/surface/reports/html-specs.js');
const { templateKey } = require('../dist/surface/reports/html-vega.js');

const title = { text: 'title' };
const specs = { norm: normSpec([], title), err: errSpec([], title), head: headSpec([], title) };
const templates = {};
for (const [name, spec] of Object.entries(specs)) {
  const vega = compile(spec).spec;
  templates[templateKey(spec)] = vega;
  console.log(`${name}: ${templateKey(spec)}`);
}
const file = fileURLToPath(new URL('../src/surface/reports/html-vega.json', import.meta.url));
const options = (await prettier.resolveConfig(file)) ?? {};
writeFileSync(file, await prettier.format(JSON.stringify(templates), { ...options, filepath: file }));
console.log(`${file}: ${Object.keys(templates).length} templates`);
