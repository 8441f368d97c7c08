import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The fused flash-attention kernel (src/kernels/flash-attention.ts) against the unfused attend on
 * the same webgpu backend, through bench/kernels/flash-check.mjs on the built dist/ (Dawn cannot
 * load under jest): where an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1). Lavapipe
 * compiles each of the three shaders (D 24/256/576) in tens of seconds, hence the timeout.
 */
jest.setTimeout(900_000);

interface Err { rel: number; mismatched: number }
interface Check { name: string; out: Err; lse: Err; max: Err; leakedTensors: number; ok: boolean }
interface FlashJson { passed: boolean; tolerance: number; device: { name: string }; checks: Check[] }

const outDir = checkDir('mla-flash-', 'kernels/flash-attention.js');

// The default tiles (V through registers, loops unrolled), and both switched off: each code path of the two flags.
itWebgpu.each(['1', '0'])(`webgpu: flashAttention (V through registers and unrolled loops: %s) equals the unfused attend within 1e-5 on 26 MHA/MQA edge cases (4 with split-KV, 5 token-major), no leak${skipReason}`, async (flags) => {
  const j = await runCheck<FlashJson>('flash-check.mjs', outDir(), 'flash-check.json', ['--time', '0', '--prefetch-v', flags, '--unroll', flags]);
  expect(j.tolerance).toBeLessThanOrEqual(1e-5);
  expect(j.checks.length).toBe(26);
  for (const c of j.checks) {
    expect({ name: c.name, ok: c.ok, leaked: c.leakedTensors, mismatched: c.out.mismatched + c.lse.mismatched + c.max.mismatched })
      .toEqual({ name: c.name, ok: true, leaked: 0, mismatched: 0 });
    expect(Math.max(c.out.rel, c.lse.rel, c.max.rel)).toBeLessThanOrEqual(j.tolerance);
  }
  expect(j.passed).toBe(true);
});
