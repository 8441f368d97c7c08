import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import execa from 'execa';
import { ROOT, checkDir, itWebgpu, skipReason } from './webgpu-checks';

/**
 * The single-program RMSNorm and RoPE (src/kernels/norm-rope.ts) against the tfjs ops they replace
 * on the same webgpu backend and against float64 on the host, through bench/kernels/norm-rope-check.mjs
 * on the built dist/ (Dawn cannot load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
const BENCH = join(ROOT, 'bench', 'kernels', 'norm-rope-check.mjs');

jest.setTimeout(600_000);

interface Check { name: string; rel: number; host: number; shapeOk: boolean; leakedTensors: number; ok: boolean }
interface NormRopeJson { passed: boolean; tolerance: number; device: { name: string }; checks: Check[] }

const outDir = checkDir('mla-norm-rope-', 'kernels/norm-rope.js');

itWebgpu(`webgpu: rmsNorm and rope equal the tfjs ops and float64 within 1e-6 on 6 norm and 8 rotation cases (GLM-5 widths, off-stride widths, a dispatch spilling into y, empty), no leak${skipReason}`, async () => {
  const r = await execa('node', [BENCH, '--device', 'webgpu', '--out', outDir()], { cwd: ROOT, reject: false });
  expect({ exit: r.exitCode, stderr: r.exitCode === 0 ? '' : r.stdout.slice(-3000) }).toEqual({ exit: 0, stderr: '' });
  const j = JSON.parse(readFileSync(join(outDir(), 'norm-rope-check.json'), 'utf8')) as NormRopeJson;
  expect(j.device.name).toBe('webgpu');
  expect(j.tolerance).toBeLessThanOrEqual(1e-6);
  expect(j.checks.length).toBe(14);
  for (const c of j.checks) {
    expect({ name: c.name, ok: c.ok, shapeOk: c.shapeOk, leaked: c.leakedTensors }).toEqual({ name: c.name, ok: true, shapeOk: true, leaked: 0 });
    expect(Math.max(c.rel, c.host)).toBeLessThanOrEqual(j.tolerance);
  }
  expect(j.passed).toBe(true);
});
