import type { Config } from 'jest';

// Unit tests sit beside the code (src/**/*.test.ts); e2e tests drive the built CLI (test/e2e).
const config: Config = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
  testTimeout: 120_000,
  maxWorkers: 2,
};

export default config;
