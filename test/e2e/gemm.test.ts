import type { ProductCheck } from './webgpu-checks';
import { checkDir, expectProductChecks, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The register-tiled GEMM (src/devices/kernels/gemm.ts) against tf.matMul on the same webgpu backend and
 * against the float64 product on the host, through checks/gemm-check.mjs on the built package
 * (Dawn cannot load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
jest.setTimeout(600_000);

const outDir = checkDir('mla-gemm-', 'devices/kernels/gemm.js');

itWebgpu(
  'webgpu: gemm equals tf.matMul and the float64 product within 1e-5 on 24 edge, layer-shaped, batched and split-K cases ' +
    '(2 with the k-steps one per iteration) and 5 per-head (token-major) cases, no leak; ' +
    `the split-K cases split${skipReason}`,
  async () => {
    const j = await runCheck<{ passed: boolean; tolerance: number; device: { name: string }; checks: ProductCheck[] }>(
      'gemm-check.mjs',
      outDir(),
      'gemm-check.json',
    );
    expectProductChecks(j, 29, 1e-5);
    const splits = (j.checks as (ProductCheck & { split?: number })[]).filter((c) => c.name.startsWith('split-K')).map((c) => c.split);
    expect(splits).toEqual([4, 8, 8]);
  },
);
