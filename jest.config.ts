import type { Config } from 'jest';

// Two projects (issue 19, point 7): `unit`, the inner loop (`npm run test:unit`, ≤ 2 minutes on 2 cores), and
// `integration` (`npm run test:integration`): the e2e tests that drive the built CLI (test/e2e) and the suites
// beside the code that run whole scenarios or take over ~10 s. A suite moves to INTEGRATION by path here.
const INTEGRATION = [
  'test/e2e/**/*.test.ts',
  // selftest: the quick plan on wasm, every planted fault (~50 s)
  'src/**/selftest/selftest.test.ts',
  // the run report's JSON schemas against fresh runs (~28 s); harness/schema/ until it moves to trace/
  'src/{harness/schema,trace}/schema.test.ts',
  // the core differential test: whole scenarios through every path (~15 s)
  'src/paths/backends.test.ts',
  // the fuzz smoke (issue 23): a seeded campaign through the built harness, CLI runs included (~60 s)
  'src/fuzz/smoke.test.ts',
];

const shared = {
  testEnvironment: 'node',
  // isolatedModules (in tsconfig.json): ts-jest transpiles each file alone; `npm run typecheck` checks the types
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 120_000,
} satisfies Config;

const config: Config = {
  maxWorkers: 2,
  testTimeout: 120_000,
  // A worker has 500 ms by default to exit once its files are done; a worker that loaded vega (the HTML tests) took
  // longer on the shared 2-core VM at load 12 with no handle left open (checked with async_hooks), and jest printed
  // "a worker process has failed to exit gracefully". 5 s of grace: a handle that never closes still warns.
  workerGracefulExitTimeout: 5_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.test.ts'],
      // testPathIgnorePatterns takes regexes; these globs are spelled out once more, kept in step with INTEGRATION
      testPathIgnorePatterns: [
        '/node_modules/',
        '/selftest/selftest\\.test\\.ts$',
        '/src/(harness/schema|trace)/schema\\.test\\.ts$',
        '/src/paths/backends\\.test\\.ts$',
        '/src/fuzz/smoke\\.test\\.ts$',
      ],
    },
    { ...shared, displayName: 'integration', testMatch: INTEGRATION.map((glob) => `<rootDir>/${glob}`) },
  ],
};

export default config;
