import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { probeAdapter } from '../../src/runtime/select';

/**
 * What the WebGPU e2e checks share: they run a bench/…-check.mjs script on the built dist/ (Dawn
 * cannot load under jest) where an adapter exists — here, or CI's lavapipe, where
 * MLA_DIFF_REQUIRE_WEBGPU=1 turns a missing adapter into a failure instead of a skip.
 */
export const ROOT = resolve(__dirname, '../..');

const probe = probeAdapter();
/** `it` where WebGPU runs, else `it.skip`; the suffix says why a test was skipped. */
export const itWebgpu = process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || !('missing' in probe) ? it : it.skip;
export const skipReason = 'missing' in probe ? ` [skipped here: no WebGPU adapter (${probe.missing} missing)]` : '';

/** Builds dist/ once when `distFile` (relative to dist/) is missing. */
export async function ensureBuilt(distFile: string): Promise<void> {
  if (!existsSync(join(ROOT, 'dist', distFile))) await execa('npm', ['run', 'build'], { cwd: ROOT });
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
