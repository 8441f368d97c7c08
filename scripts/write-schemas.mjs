// Writes schema/*.schema.json from the zod schemas of src/trace, through the built package (`npm run schemas`,
// which builds first) after a change to the report types. src/trace/schema.test.ts fails while the files and the source disagree.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const { schemaFiles } = require('mla-diff');
const dir = process.argv[2] ?? 'schema';
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(schemaFiles())) {
  writeFileSync(join(dir, name), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${join(dir, name)}`);
}
