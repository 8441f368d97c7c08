import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * Host values to the GPU through tfjs's buffer pool (src/devices/webgpu-upload.ts), through
 * checks/upload-check.mjs on the built package: where an adapter exists (CI: lavapipe).
 */
jest.setTimeout(300_000);

const outDir = checkDir('mla-upload-', 'devices/webgpu-upload.js');

interface UploadReport {
  device: { name: string };
  passed: boolean;
  checks: { name: string; ok: boolean; leaked?: number; createdBuffers?: unknown[] }[];
}

itWebgpu(
  'webgpu: float32, int32 and bool host values come back bit for bit, a tensor disposed under a pending command keeps its values, ' +
    `pooled sizes create no buffer${skipReason}`,
  async () => {
    const j = await runCheck<UploadReport>('upload-check.mjs', outDir(), 'upload-check.json');
    expect(j.checks.map((c) => c.name)).toHaveLength(15);
    for (const c of j.checks) expect({ name: c.name, ok: c.ok, leaked: c.leaked ?? 0 }).toEqual({ name: c.name, ok: true, leaked: 0 });
    expect(j.checks.find((c) => c.name.startsWith('50 uploads'))?.createdBuffers).toEqual([]);
    expect(j.passed).toBe(true);
  },
);
