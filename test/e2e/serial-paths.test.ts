import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * A large case's pieces with context run their paths one at a time with the pool settling between them
 * (src/harness/run/step-paths.ts, Runtime.settle): on the GPU's runtime they say what the pipelined paths say,
 * through checks/serial-check.mjs on the built package (Dawn cannot load under jest), where an adapter exists
 * (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
jest.setTimeout(600_000);

interface SerialJson {
  passed: boolean;
  device: { name: string };
  settles: number;
  checks: Record<'diverges' | 'same' | 'settled' | 'noLeak', boolean>;
}

const outDir = checkDir('mla-diff-serial-', 'harness/run/step-paths.js');

itWebgpu(`webgpu: paths one at a time in a large case say what pipelined paths say, settling between them${skipReason}`, async () => {
  const j = await runCheck<SerialJson>('serial-check.mjs', outDir(), 'serial-check.json');
  expect(j.checks).toEqual({ diverges: true, same: true, settled: true, noLeak: true });
  expect(j.settles).toBeGreaterThan(0);
  expect(j.passed).toBe(true);
});
