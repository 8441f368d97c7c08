import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { GemmTiles } from './gemm-wgsl';
import type { GemmLimits, GemmPlan, GemmStrides, Operand } from './gemm-plan';
import { bad, finishPlan } from './gemm-plan';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';
import { chooseSplitK, splitPlan, sumParts } from './gemm-split';
import { GEMM_UNIFORMS, gemmShader, gemmShaderKey, gemmThreads } from './gemm-wgsl';

/**
 * C = A·B on tfjs-backend-webgpu (fp32, row-major, contiguous) through a register-tiled WGSL GEMM
 * (gemm-wgsl.ts): tf.matMul's packed kernel uses 32×32 tiles and 4×4 outputs per thread.
 *
 *   a [M,K]    · b [K,N]      → c [M,N]
 *   a [Bt,M,K] · b [Bt|1,K,N] → c [Bt,M,N]   (a b with batch 1 is shared by every batch entry)
 *
 * Same result as tf.matMul within fp32 rounding (the k-sum order differs). Any M, N, K ≥ 1; an
 * empty product (M, N or Bt 0) is zeros, K = 0 too.
 * Limits (checked, MlaDiffError 'device-limit'): each of a, b and c within the device's
 * maxStorageBufferBindingSize (2 GiB − 4 on the H200, 128 MiB on lavapipe): the caller splits rows
 * or columns; ceil(M/bm), ceil(N/bn) and Bt at most maxComputeWorkgroupsPerDimension; explicit
 * tiles within the workgroup memory and thread limits (without tiles: chooseGemmTiles).
 * Cost: one dispatch; two for a 2-D product split over K (gemm-split.ts: few output tiles, long K).
 */

/** Shapes, tiles and limits checked up front; pure (no GPU), so every error path is testable anywhere. */
export function planGemm(a: Operand, b: Operand, limits: GemmLimits, tiles?: GemmTiles): GemmPlan {
  const ra = a.shape.length,
    rb = b.shape.length;
  if (ra !== 2 && ra !== 3) throw bad(`a must be [M,K] or [Bt,M,K], got [${a.shape}]`);
  if (rb !== 2 && rb !== 3) throw bad(`b must be [K,N] or [Bt|1,K,N], got [${b.shape}]`);
  if (ra === 2 && rb === 3) throw bad(`a 2-D a takes a 2-D b, got [${a.shape}]·[${b.shape}]`);
  for (const [name, t] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (t.dtype !== 'float32') throw bad(`${name} must be float32, got ${t.dtype}`);
  }
  const batch = ra === 3 ? a.shape[0]! : 1;
  const [M, K] = a.shape.slice(-2) as [number, number];
  const [Kb, N] = b.shape.slice(-2) as [number, number];
  if (Kb !== K) throw bad(`a has K = ${K} columns, b has ${Kb} rows`);
  const bBatch = rb === 3 ? b.shape[0]! : 1;
  if (bBatch !== batch && bBatch !== 1) throw bad(`b has ${bBatch} batch entries, a has ${batch} (b may have 1, shared)`);
  const strides: GemmStrides = { lda: K, aBatch: M * K, aOff: 0, ldb: N, bBatch: bBatch === 1 ? 0 : K * N, ldc: N, cBatch: M * N };
  return finishPlan(
    { batch, M, N, K, broadcastB: bBatch === 1, strides, outputShape: ra === 3 ? [batch, M, N] : [M, N] },
    [
      ['a', batch * M * K],
      ['b', bBatch * K * N],
      ['c', batch * M * N],
    ],
    limits,
    tiles,
  );
}

/** The program for a plan (pure: its shader and key are testable without a GPU). */
export function gemmProgram(p: GemmPlan): WebgpuProgram {
  return {
    outputShape: p.outputShape,
    shaderKey: gemmShaderKey(p.tiles, p.vec),
    dispatchLayout: { x: [0] },
    dispatch: p.dispatch,
    workgroupSize: [gemmThreads(p.tiles), 1, 1],
    variableNames: ['A', 'B'],
    variableComponents: [p.vec.a ? 4 : 1, p.vec.b ? 4 : 1],
    outputComponent: p.vec.b ? 4 : 1,
    uniforms: GEMM_UNIFORMS,
    getUserCode: () => gemmShader(p.tiles, p.vec),
  };
}

/** a·b on the webgpu backend; see the header for shapes and limits. */
export function gemm<T extends tfc.Tensor2D | tfc.Tensor3D>(tf: typeof tfc, a: T, b: tfc.Tensor2D | tfc.Tensor3D, tiles?: GemmTiles): T {
  if (tf.getBackend() !== 'webgpu') {
    throw new MlaDiffError('device-unavailable', `gemm runs on webgpu; the backend is ${tf.getBackend()}`, { field: 'gemm' });
  }
  const backend = webgpuBackend(tf);
  const limits = backend.device.limits as unknown as GemmLimits;
  const plan = planGemm(a, b, limits, tiles);
  const s = tiles ? 1 : chooseSplitK(plan); // explicit tiles: exactly that program
  if (s === 1) return runGemm(tf, plan, a, b) as T;
  const parts = runGemm(tf, splitPlan(plan, s, limits), a, b); // [s,M,N]
  const c = sumParts(tf, parts); // [M,N]
  parts.dispose();
  return c as T;
}

/** Dispatches a plan over a and b (zeros for an empty product). */
export function runGemm(tf: typeof tfc, p: GemmPlan, a: tfc.Tensor, b: tfc.Tensor): tfc.Tensor {
  const backend = webgpuBackend(tf);
  const program = gemmProgram(p);
  if (p.batch * p.M * p.N === 0 || p.K === 0) return tf.zeros(program.outputShape);
  const info = (t: tfc.Tensor): tfc.TensorInfo => ({ dataId: t.dataId, shape: t.shape, dtype: 'float32' });
  const int = (x: number): WebgpuUniform => ({ type: 'int32', data: [x] });
  const s = p.strides;
  const uniforms = [p.M, p.N, p.K, s.lda, s.aBatch, s.aOff, s.ldb, s.bBatch, s.ldc, s.cBatch].map(int);
  return tf.engine().makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [info(a), info(b)], 'float32', uniforms));
}
