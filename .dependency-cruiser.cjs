// dependency-cruiser: the module graph's rules (issue 19, point 4). `npm run check:deps` runs this and
// scripts/deps/check-folders.mjs (no two folders importing each other, which per-module rules cannot say).
// docs/architecture.md explains the wings; `npm run graph` draws docs/architecture.svg from this config.

const { WINGS: LADDER, TEST } = require('./scripts/deps/wings.cjs');

// src/fuzz/ (issue 23): the fuzz harness sits above the public API: it may import every wing, nothing imports it (it
// ships in dist/ only so that `node dist/fuzz/campaign.js` runs without a TypeScript loader).
const WINGS = [...LADDER, { name: 'fuzz', path: '^src/fuzz/', what: 'the fuzz harness: mutators, targets, campaign' }];

// Optional peer dependencies (the GPU stack: @tensorflow/tfjs-node-gpu, webgpu, ...) need not be installed: not resolving them is fine.
const PKG = require('./package.json');
const OPTIONAL = Object.keys({ ...PKG.optionalDependencies, ...PKG.peerDependencies }).map((n) => `^${n.replace(/[/.]/g, '\\$&')}$`);

const names = (wings) => wings.map((w) => w.name).join(', ');

/** One rule a wing: `layer-<wing>`: nothing in <wing> imports a wing above it (tests excepted). */
const layering = WINGS.slice(0, -1).map((wing, i) => ({
  name: `layer-${wing.name}`,
  comment: `layering: ${wing.name} may import ${names(WINGS.slice(0, i + 1))}, not ${names(WINGS.slice(i + 1))} (docs/architecture.md)`,
  severity: 'error',
  from: { path: wing.path, pathNot: TEST },
  to: { path: WINGS.slice(i + 1).map((w) => w.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycles, type-only imports counted (tests included: a cycle through a test is still a cycle)',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    // src/formats/ is standalone: besides itself it sees only src/errors.ts, src/version.ts (and node/npm packages).
    {
      name: 'formats-standalone',
      comment: 'src/formats/ imports nothing of src/ but src/errors.ts, src/version.ts and itself',
      severity: 'error',
      from: { path: '^src/formats/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/((errors|version)\\.ts$|formats/)' },
    },
    ...layering,
    {
      name: 'wing-unassigned',
      comment: 'every module of src/ belongs to a wing (add a new top-level file or folder to WINGS in .dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: '^src/', pathNot: [...WINGS.map((w) => w.path), TEST] },
      to: {},
    },
    {
      name: 'test-utils-only-in-tests',
      comment: 'src/test-utils/ and */test-utils/ are test-only: only tests and other test helpers import them',
      severity: 'error',
      from: { pathNot: TEST },
      to: { path: '(^|/)test-utils/' },
    },
    {
      name: 'no-test-imports',
      comment: 'nothing imports a test file (a test is a leaf)',
      severity: 'error',
      from: {},
      to: { path: '\\.test\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import resolves (optional dependencies, which may be absent, excepted)',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: OPTIONAL },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|fixtures)/' },
    // type-only imports are edges too: `import type` cycles break declaration emit and reading order alike.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
