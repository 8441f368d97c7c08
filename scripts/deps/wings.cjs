// The wings of src/, bottom to top (docs/architecture.md). A module of a wing may import its own wing and
// any wing below it, never one above. src/index.ts (the public API) sits on top of them all; the test
// helpers (src/test-utils/, */test-utils/) and tests are outside the ladder. Read by .dependency-cruiser.cjs
// (the layer-<wing> rules) and scripts/deps/graph.mjs (the picture's clusters).
const WINGS = [
  { name: 'base', path: '^src/((errors|version)\\.ts$|formats/)', what: 'errors, version, file formats (GGUF, safetensors)' },
  { name: 'trace', path: '^src/trace/', what: "the run report's zod schemas" },
  { name: 'core', path: '^src/core/', what: 'model, probes, faults, weights, schedule, precision' },
  { name: 'devices', path: '^src/devices/', what: 'runtimes and kernels' },
  { name: 'paths', path: '^src/paths/', what: 'mha, mqa, cold, reference' },
  { name: 'checkpoints', path: '^src/checkpoints/', what: 'checkpoint, tokenizer, inspect' },
  { name: 'engines', path: '^src/engines/', what: "real engines driven in-process: llama.cpp's binding, child, models" },
  { name: 'harness', path: '^src/harness/', what: 'scenario, run, compare, golden, sweep, selftest, external' },
  { name: 'surface', path: '^src/surface/', what: 'reports, cli' },
  { name: 'api', path: '^src/index\\.ts$', what: 'the public API' },
];

// A test (beside its code, or under test/) and the test-only helpers.
const TEST = '\\.test\\.ts$|(^|/)test-utils/|^test/';

module.exports = { WINGS, TEST };
