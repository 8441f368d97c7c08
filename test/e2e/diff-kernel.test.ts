import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The comparison's fused pair-diff kernel (src/devices/kernels/diff-kernel.ts) against float64 sums over the
 * same pairs, through checks/diff-check.mjs on the built package (Dawn cannot load under jest): where an
 * adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
jest.setTimeout(600_000);

interface DiffJson {
  passed: boolean;
  tolerance: number;
  device: { name: string };
  checks: { name: string; via: string; bad: string[]; leakedTensors: number; ok: boolean }[];
}

const outDir = checkDir('mla-diff-kernel-', 'devices/kernels/diff-kernel.js');

itWebgpu(`webgpu: the diff kernel equals float64 sums on 14 edge cases (and with the dispatch in y), no leak${skipReason}`, async () => {
  const j = await runCheck<DiffJson>('diff-check.mjs', outDir(), 'diff-check.json', ['--time', '0']);
  expect(j.tolerance).toBeLessThanOrEqual(1e-6);
  expect(j.checks.filter((c) => c.via === 'kernel').length).toBe(14);
  expect(j.checks.some((c) => c.via === 'kernel, dispatch y')).toBe(true);
  for (const c of j.checks)
    expect({ name: c.name, ok: c.ok, bad: c.bad, leaked: c.leakedTensors }).toEqual({ name: c.name, ok: true, bad: [], leaked: 0 });
  expect(j.passed).toBe(true);
});
