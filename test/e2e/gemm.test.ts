import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { probeAdapter } from '../../src/runtime/select';

/**
 * The register-tiled GEMM (src/kernels/gemm.ts) against tf.matMul on the same webgpu backend and
 * against the float64 product on the host, through bench/kernels/gemm-check.mjs on the built dist/
 * (Dawn cannot load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
const ROOT = resolve(__dirname, '../..');
const BENCH = join(ROOT, 'bench', 'kernels', 'gemm-check.mjs');

jest.setTimeout(600_000);

interface Check { name: string; rel: number; host: number; shapeOk: boolean; leakedTensors: number; ok: boolean }
interface GemmJson { passed: boolean; tolerance: number; device: { name: string }; checks: Check[] }

let dir: string;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'kernels', 'gemm.js'))) await execa('npm', ['run', 'build'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'mla-gemm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const probe = probeAdapter();
const webgpu = process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || !('missing' in probe);
const reason = 'missing' in probe ? `no WebGPU adapter (${probe.missing} missing)` : '';

(webgpu ? it : it.skip)(`webgpu: gemm equals tf.matMul and the float64 product within 1e-5 on 19 edge, layer-shaped and batched cases, no leak${reason ? ` [skipped here: ${reason}]` : ''}`, async () => {
  const r = await execa('node', [BENCH, '--device', 'webgpu', '--out', dir], { cwd: ROOT, reject: false });
  expect({ exit: r.exitCode, stderr: r.exitCode === 0 ? '' : r.stdout.slice(-3000) }).toEqual({ exit: 0, stderr: '' });
  const j = JSON.parse(readFileSync(join(dir, 'gemm-check.json'), 'utf8')) as GemmJson;
  expect(j.device.name).toBe('webgpu');
  expect(j.tolerance).toBeLessThanOrEqual(1e-5);
  expect(j.checks.length).toBe(19);
  for (const c of j.checks) {
    expect({ name: c.name, ok: c.ok, shapeOk: c.shapeOk, leaked: c.leakedTensors }).toEqual({ name: c.name, ok: true, shapeOk: true, leaked: 0 });
    expect(Math.max(c.rel, c.host)).toBeLessThanOrEqual(j.tolerance);
  }
  expect(j.passed).toBe(true);
});
