import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { probeAdapter } from '../../src/devices/select';

/**
 * What the WebGPU e2e checks share: they run a checks/…-check.mjs script on the built package (Dawn
 * cannot load under jest) where an adapter exists — here, or CI's lavapipe, where
 * MLA_DIFF_REQUIRE_WEBGPU=1 turns a missing adapter into a failure instead of a skip.
 */
export const ROOT = resolve(__dirname, '../..');

const probe = probeAdapter();
/** `it` where WebGPU runs, else `it.skip`; the suffix says why a test was skipped. */
export const itWebgpu = process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || !('missing' in probe) ? it : it.skip;
export const skipReason = 'missing' in probe ? ` [skipped here: no WebGPU adapter (${probe.missing} missing)]` : '';

/**
 * Builds dist/ once when `distFile` (relative to dist/) is missing. A path the build does not produce is an error:
 * a stale one rebuilt dist/ on every run, under the feet of the tests running the CLI beside it.
 */
export async function ensureBuilt(distFile: string): Promise<void> {
  const file = join(ROOT, 'dist', distFile);
  if (existsSync(file)) return;
  await execa('npm', ['run', 'build'], { cwd: ROOT });
  if (!existsSync(file)) throw new Error(`dist/${distFile} is not a file the build writes: fix the path in the test`);
}

/** A temporary directory per test file (beforeAll / afterAll), with the build ensured first. */
export function checkDir(prefix: string, distFile: string): () => string {
  let dir = '';
  beforeAll(async () => {
    await ensureBuilt(distFile);
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

/**
 * Runs checks/`script` on webgpu with `--out dir` (and `extra`), expects exit 0 (else shows the
 * tail of its output) and returns the JSON it wrote there, `json`, after checking it ran on webgpu.
 */
export async function runCheck<J extends { device: { name: string } }>(
  script: string,
  dir: string,
  json: string,
  extra: string[] = [],
): Promise<J> {
  const r = await execa('node', [join(__dirname, 'checks', script), '--device', 'webgpu', '--out', dir, ...extra], {
    cwd: ROOT,
    reject: false,
  });
  expect({ exit: r.exitCode, output: r.exitCode === 0 ? '' : r.stdout.slice(-3000) }).toEqual({ exit: 0, output: '' });
  const j = JSON.parse(readFileSync(join(dir, json), 'utf8')) as J;
  expect(j.device.name).toBe('webgpu');
  return j;
}

/** A kernel check against its oracle and float64: max relative errors, output shape, leaked tensors. */
export interface ProductCheck {
  name: string;
  rel: number;
  host: number;
  shapeOk: boolean;
  leakedTensors: number;
  ok: boolean;
}

/** Every check of a gemm/norm-rope style report passes: `count` of them, each within the report's tolerance. */
export function expectProductChecks(
  j: { passed: boolean; tolerance: number; checks: ProductCheck[] },
  count: number,
  tolerance: number,
): void {
  expect(j.tolerance).toBeLessThanOrEqual(tolerance);
  expect(j.checks.length).toBe(count);
  for (const c of j.checks) {
    expect({ name: c.name, ok: c.ok, shapeOk: c.shapeOk, leaked: c.leakedTensors }).toEqual({
      name: c.name,
      ok: true,
      shapeOk: true,
      leaked: 0,
    });
    expect(Math.max(c.rel, c.host)).toBeLessThanOrEqual(j.tolerance);
  }
  expect(j.passed).toBe(true);
}
