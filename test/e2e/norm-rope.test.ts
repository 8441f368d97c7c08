import type { ProductCheck } from './webgpu-checks';
import { checkDir, expectProductChecks, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The single-program RMSNorm and RoPE (src/devices/kernels/norm-rope.ts) against the tfjs ops they replace
 * on the same webgpu backend and against float64 on the host, through checks/norm-rope-check.mjs
 * on the built dist/ (Dawn cannot load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
jest.setTimeout(600_000);

const outDir = checkDir('mla-norm-rope-', 'devices/kernels/norm-rope.js');

itWebgpu(
  'webgpu: rmsNorm and rope equal the tfjs ops and float64 within 1e-6 on 6 norm and 8 rotation cases ' +
    `(GLM-5 widths, off-stride widths, a dispatch spilling into y, empty), no leak${skipReason}`,
  async () => {
    const j = await runCheck<{ passed: boolean; tolerance: number; device: { name: string }; checks: ProductCheck[] }>(
      'norm-rope-check.mjs',
      outDir(),
      'norm-rope-check.json',
    );
    expectProductChecks(j, 14, 1e-6);
  },
);
