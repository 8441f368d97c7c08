// dependency-cruiser: the module graph's rules (issue 19, point 4). `npm run check:deps` runs this and
// scripts/check-folders.mjs (no two folders importing each other, which per-module rules cannot say).
// docs/architecture.md explains the wings; `npm run graph` draws docs/architecture.svg from this config.

// A test (beside its code, or under test/) and the test-only helpers (src/test-utils/, any */test-utils/).
const TEST = '\\.test\\.ts$|(^|/)test-utils/|^test/';

// The wings, bottom to top. A module of a wing may import its own wing and any wing below it, never one
// above. src/index.ts (the public API) sits on top of them all; src/test-utils/ is outside the ladder.
const WINGS = [
  { name: 'base', path: '^src/((errors|version)\\.ts$|formats/)' },
  { name: 'trace', path: '^src/trace/' },
  { name: 'core', path: '^src/core/' },
  { name: 'devices', path: '^src/devices/' },
  { name: 'paths', path: '^src/paths/' },
  { name: 'checkpoints', path: '^src/checkpoints/' },
  { name: 'harness', path: '^src/harness/' },
  { name: 'surface', path: '^src/surface/' },
  { name: 'api', path: '^src/index\\.ts$' },
];

// optionalDependencies (@tensorflow/tfjs-node-gpu, webgpu) need not be installed: not resolving them is fine.
const OPTIONAL = Object.keys(require('./package.json').optionalDependencies ?? {}).map((n) => `^${n.replace(/[/.]/g, '\\$&')}$`);

/** One rule a wing: `layer-<wing>`: nothing in <wing> imports a wing above it (tests excepted). */
const layering = WINGS.slice(0, -1).map((wing, i) => ({
  name: `layer-${wing.name}`,
  comment:
    `layering: ${wing.name} (${wing.path}) may import only ` +
    `${WINGS.slice(0, i + 1)
      .map((w) => w.name)
      .join(', ')}; ` +
    `not ${WINGS.slice(i + 1)
      .map((w) => w.name)
      .join(', ')} (docs/architecture.md)`,
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
    reporterOptions: {
      // `npm run graph`: one box per folder, clustered by wing.
      archi: {
        collapsePattern: '^src/([^/]+/[^/]+|[^/]+\\.ts|[^/]+)',
      },
      dot: {
        collapsePattern: '^src/([^/]+/[^/]+|[^/]+\\.ts|[^/]+)',
      },
    },
  },
};
