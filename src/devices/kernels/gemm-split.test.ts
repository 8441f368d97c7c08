import { planGemm } from './gemm';
import type { GemmLimits } from './gemm-plan';
import { MAX_SPLIT_K, MIN_SPLIT_K, SPLIT_WORKGROUPS, chooseSplitK, splitPlan } from './gemm-split';

const H200: GemmLimits = {
  maxStorageBufferBindingSize: 2 ** 31 - 4,
  maxComputeWorkgroupStorageSize: 49152,
  maxComputeInvocationsPerWorkgroup: 1024,
  maxComputeWorkgroupsPerDimension: 65535,
};
const op = (shape: number[]) => ({ shape, dtype: 'float32' as const });
const plan = (M: number, K: number, N: number) => planGemm(op([M, K]), op([K, N]), H200);

describe('split-K', () => {
  it('splits the GLM-5 projections that make few workgroups over a long K, and none at T = 8192', () => {
    const at = (T: number) =>
      [
        [6144, 2048],
        [2048, 16384],
        [6144, 576],
        [512, 28672],
        [16384, 6144],
      ].map(([K, N]) => chooseSplitK(plan(T, K!, N!)));
    // q_a, q_b, kv_a, kv_b, o_proj
    expect(at(512)).toEqual([2, 1, 4, 1, 1]);
    expect(at(2048)).toEqual([1, 1, 1, 1, 1]);
    expect(at(8192)).toEqual([1, 1, 1, 1, 1]);
    expect(at(1)).toEqual([8, 2, 8, 1, 4]); // a decode step
  });

  it('stops at MAX_SPLIT_K, at MIN_SPLIT_K of K per part, at SPLIT_WORKGROUPS, and where K does not divide into paired k-steps', () => {
    expect(chooseSplitK(plan(1, 1 << 20, 8))).toBe(MAX_SPLIT_K);
    expect(chooseSplitK(plan(1, 2 * MIN_SPLIT_K, 8))).toBe(2);
    expect(chooseSplitK(plan(1, 2 * MIN_SPLIT_K - 32, 8))).toBe(1);
    expect(chooseSplitK(plan(1, 6144 + 8, 8))).toBe(1); // 6152 is no multiple of 2·32
    const p = plan(512, 16384, 6144);
    expect(p.dispatch[0] * p.dispatch[1] * chooseSplitK(p)).toBeGreaterThanOrEqual(SPLIT_WORKGROUPS);
    expect(chooseSplitK(planGemm(op([4, 64, 6144]), op([6144, 8]), H200))).toBe(1); // batched: never
  });

  it('plans the parts as batch entries: A columns and B rows K/s apart, partials [s,M,N]', () => {
    const p = splitPlan(plan(512, 6144, 576), 8, H200);
    expect(p).toMatchObject({ batch: 8, M: 512, N: 576, K: 768, outputShape: [8, 512, 576], dispatch: [9, 8, 8] });
    expect(p.strides).toEqual({ lda: 6144, aBatch: 768, aOff: 0, ldb: 576, bBatch: 768 * 576, ldc: 576, cBatch: 512 * 576 });
    expect(p.vec).toEqual({ a: true, b: true });
  });
});
