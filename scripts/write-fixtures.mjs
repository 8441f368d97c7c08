// Writes the checkpoint fixtures (GGUF, safetensors, tokenizers) from synthetic weights with the
// built writers: `npm run fixtures` (npm test runs it). Usage: node scripts/write-fixtures.mjs [dir]
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const api = require('mla-diff');
const { writeFixtures } = api;
const dir = process.argv[2] ?? 'fixtures/checkpoints';
for (const f of writeFixtures(dir)) console.log(`${f.path} (${(f.bytes / 1024).toFixed(1)} KiB)`);
