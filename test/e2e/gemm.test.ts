import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import execa from 'execa';
import { ROOT, checkDir, itWebgpu, skipReason } from './webgpu-checks';

/**
 * The register-tiled GEMM (src/kernels/gemm.ts) against tf.matMul on the same webgpu backend and
 * against the float64 product on the host, through bench/kernels/gemm-check.mjs on the built dist/
 * (Dawn cannot load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
const BENCH = join(ROOT, 'bench', 'kernels', 'gemm-check.mjs');

jest.setTimeout(600_000);

interface Check { name: string; rel: number; host: number; shapeOk: boolean; leakedTensors: number; ok: boolean }
interface GemmJson { passed: boolean; tolerance: number; device: { name: string }; checks: Check[] }

const outDir = checkDir('mla-gemm-', 'kernels/gemm.js');

itWebgpu(`webgpu: gemm equals tf.matMul and the float64 product within 1e-5 on 21 edge, layer-shaped and batched cases (2 with the k-steps one per iteration) and 5 per-head (token-major) cases, no leak${skipReason}`, async () => {
  const r = await execa('node', [BENCH, '--device', 'webgpu', '--out', outDir()], { cwd: ROOT, reject: false });
  expect({ exit: r.exitCode, stderr: r.exitCode === 0 ? '' : r.stdout.slice(-3000) }).toEqual({ exit: 0, stderr: '' });
  const j = JSON.parse(readFileSync(join(outDir(), 'gemm-check.json'), 'utf8')) as GemmJson;
  expect(j.device.name).toBe('webgpu');
  expect(j.tolerance).toBeLessThanOrEqual(1e-5);
  expect(j.checks.length).toBe(26);
  for (const c of j.checks) {
    expect({ name: c.name, ok: c.ok, shapeOk: c.shapeOk, leaked: c.leakedTensors }).toEqual({ name: c.name, ok: true, shapeOk: true, leaked: 0 });
    expect(Math.max(c.rel, c.host)).toBeLessThanOrEqual(j.tolerance);
  }
  expect(j.passed).toBe(true);
});
