import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The fused flash-attention kernel (src/devices/kernels/flash-attention.ts) against the unfused attend on
 * the same webgpu backend, through checks/flash-check.mjs on the built package (Dawn cannot
 * load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1). Lavapipe
 * compiles each of the three shaders (D 24/256/576) in tens of seconds, hence the timeout.
 */
jest.setTimeout(900_000);

interface Err {
  rel: number;
  mismatched: number;
}
interface Check {
  name: string;
  out: Err;
  lse: Err;
  max: Err;
  leakedTensors: number;
  ok: boolean;
}
interface FlashJson {
  passed: boolean;
  tolerance: number;
  device: { name: string };
  checks: Check[];
}

const outDir = checkDir('mla-flash-', 'devices/kernels/flash-attention.js');

// The default tiles (V through registers, loops unrolled), both switched off (each code path of the two flags), and
// the shapes of the H200's defaults within lavapipe's 32 KiB: 8×4 logits per thread (MHA: 64×128 with 8×4, 48 KiB),
// Q/K chunks of 32 columns and 8 output rows per thread (MQA, 38 KiB); 128 rows with 8 output rows per thread
// (MHA from LONG_ROWS query rows: 128×64, 512 threads, 47 KiB).
const H200_SHAPES = JSON.stringify({
  narrow: { rows: 32, keys: 64, threads: 64, scoreRows: 8, chunk: 8, valueKeys: 4 },
  wide: { rows: 32, keys: 64, threads: 128, chunk: 32, outRows: 8, valueKeys: 4 },
});
const H200_LONG = JSON.stringify({ narrow: { rows: 128, keys: 32, threads: 256, scoreRows: 4, outRows: 8, chunk: 8, valueKeys: 4 } });
itWebgpu.each([
  ['V through registers and unrolled loops', ['--prefetch-v', '1', '--unroll', '1']],
  ['V staged directly, loops rolled', ['--prefetch-v', '0', '--unroll', '0']],
  ['8×4 logits per thread; 32-column chunks, 8 output rows per thread', ['--tiles', H200_SHAPES]],
  ['128 rows, 8 output rows per thread', ['--tiles', H200_LONG]],
])(
  'webgpu: flashAttention (%s) equals the unfused attend within 1e-5 on 26 MHA/MQA edge cases ' +
    `(4 with split-KV, 5 token-major), no leak${skipReason}`,
  async (_, args) => {
    const j = await runCheck<FlashJson>('flash-check.mjs', outDir(), 'flash-check.json', ['--time', '0', ...(args as string[])]);
    expect(j.tolerance).toBeLessThanOrEqual(1e-5);
    expect(j.checks.length).toBe(26);
    for (const c of j.checks) {
      expect({
        name: c.name,
        ok: c.ok,
        leaked: c.leakedTensors,
        mismatched: c.out.mismatched + c.lse.mismatched + c.max.mismatched,
      }).toEqual({ name: c.name, ok: true, leaked: 0, mismatched: 0 });
      expect(Math.max(c.out.rel, c.lse.rel, c.max.rel)).toBeLessThanOrEqual(j.tolerance);
    }
    expect(j.passed).toBe(true);
  },
);
