import type * as tfc from '@tensorflow/tfjs-core';
import type { GemmLimits, GemmPlan } from './gemm-plan';
import { finishPlan } from './gemm-plan';
import { MIN_GEMM_WORKGROUPS } from './gemm-tiles';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';

/**
 * Split-K for a 2-D product with few output tiles and a long K (a decode's projections, or a few
 * hundred tokens: kv_a_proj's 576 columns over K = 6144 made 72 workgroups at T = 512, 4.7 TFLOP/s
 * on the H200; a decode's o_proj 96 over K = 16384): K is cut into s equal parts, each part a
 * batch entry of the same GEMM writing its own partial [s,M,N], summed in order by sumParts (one
 * program; tf.sum over the first axis transposes first and cost more than the split saved).
 * s doubles while the workgroups stay under SPLIT_WORKGROUPS (two per SM: splitting products past
 * that, o_proj at T = 512 or q_a_proj at 2048, gained nothing in the GEMM benchmark's --split
 * on the H200), up to 8, as long as each part keeps at
 * least MIN_SPLIT_K of K and K divides into whole (paired) k-steps. The k-sum order changes (fp32
 * rounding); the same shapes always split the same way.
 */
export const SPLIT_WORKGROUPS = MIN_GEMM_WORKGROUPS;
export const MIN_SPLIT_K = 512;
export const MAX_SPLIT_K = 8;

/** The parts K is cut into for `p` (1: no split; batched products never split). */
export function chooseSplitK(p: GemmPlan): number {
  if (p.batch !== 1) return 1;
  const groups = p.dispatch[0] * p.dispatch[1];
  const step = p.tiles.bk * (p.tiles.pairs ? 2 : 1);
  let s = 1;
  while (groups * s < SPLIT_WORKGROUPS && 2 * s <= MAX_SPLIT_K && p.K % (2 * s * step) === 0 && p.K / (2 * s) >= MIN_SPLIT_K) s *= 2;
  return s;
}

/** `p` as s batch entries over K/s each: A's columns and B's rows at offsets of K/s, partials [s,M,N]. */
export function splitPlan(p: GemmPlan, s: number, limits: GemmLimits): GemmPlan {
  const Ks = p.K / s;
  const strides = { ...p.strides, aBatch: Ks, bBatch: Ks * p.strides.ldb, cBatch: p.M * p.N };
  return finishPlan(
    { batch: s, M: p.M, N: p.N, K: Ks, broadcastB: false, strides, outputShape: [s, p.M, p.N] },
    [
      ['a', p.M * p.K],
      ['b', p.K * p.N],
      ['c', s * p.M * p.N],
    ],
    limits,
    p.tiles,
  );
}

const SUM_WGSL = `
fn main(index: i32) {
  let i = (i32(workgroupId.y) * uniforms.gx + i32(workgroupId.x)) * 256 + i32(localIndex);
  if (i >= uniforms.n) { return; }
  var acc = 0.0;
  for (var z = 0; z < uniforms.parts; z++) { acc = acc + Parts[z * uniforms.n + i]; }
  result[i] = acc;
}
`;

/** Σ_z parts[z] for partials [s,M,N] → [M,N], in z order (webgpu). */
export function sumParts(tf: typeof tfc, parts: tfc.Tensor): tfc.Tensor2D {
  const [s, M, N] = parts.shape as [number, number, number];
  const backend = webgpuBackend(tf);
  const n = M * N;
  const groups = Math.ceil(n / 256);
  const gx = Math.min(groups, backend.device.limits['maxComputeWorkgroupsPerDimension'] ?? 65535);
  const program: WebgpuProgram = {
    outputShape: [M, N],
    shaderKey: 'mlaGemmSumParts',
    dispatchLayout: { x: [0] },
    dispatch: [gx, Math.ceil(groups / gx), 1],
    workgroupSize: [256, 1, 1],
    variableNames: ['Parts'],
    uniforms: 'n : i32, parts : i32, gx : i32,',
    getUserCode: () => SUM_WGSL,
  };
  const int = (x: number): WebgpuUniform => ({ type: 'int32', data: [x] });
  const info = { dataId: parts.dataId, shape: [parts.size], dtype: 'float32' as const };
  return tf
    .engine()
    .makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [info], 'float32', [int(n), int(s), int(gx)])) as tfc.Tensor2D;
}
