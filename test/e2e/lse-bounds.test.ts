import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The one-program LSE bounds check (src/devices/kernels/lse-bounds.ts) against the tfjs ops it replaces,
 * through checks/lse-bounds-check.mjs on the built package: where an adapter exists (CI: lavapipe).
 */
jest.setTimeout(300_000);

const outDir = checkDir('mla-lse-bounds-', 'devices/kernels/lse-bounds.js');

interface Report {
  device: { name: string };
  passed: boolean;
  deviceError: string | null;
  checks: { name: string; ok: boolean; tfjsOps: number; kernel: number; nearBound: number; leakedTensors: number }[];
}

itWebgpu(
  "webgpu: LSE bound violations counted by one program equal the tfjs ops' count on 8 layouts " +
    `(MHA, MQA, chunk, per-element keys, NaN/±inf, zero keys, relative slack, one to ten workgroups)${skipReason}`,
  async () => {
    const j = await runCheck<Report>('lse-bounds-check.mjs', outDir(), 'lse-bounds-check.json');
    expect(j.deviceError).toBeNull();
    expect(j.checks).toHaveLength(8);
    for (const c of j.checks) {
      expect({ name: c.name, ok: c.ok, leaked: c.leakedTensors }).toEqual({ name: c.name, ok: true, leaked: 0 });
      expect(Math.abs(c.kernel - c.tfjsOps)).toBeLessThanOrEqual(c.nearBound);
    }
    expect(j.checks.filter((c) => c.nearBound === 0).every((c) => c.kernel === c.tfjsOps)).toBe(true);
    expect(j.checks.reduce((n, c) => n + c.kernel, 0)).toBeGreaterThan(1000); // the cases do violate the bounds
    expect(j.passed).toBe(true);
  },
);
