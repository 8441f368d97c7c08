import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { GemmLimits, GemmPlan, Operand } from './gemm-plan';
import { bad, finishPlan } from './gemm-plan';
import { runGemm } from './gemm';
import type { GemmTiles } from './gemm-wgsl';
import { webgpuBackend } from './webgpu-program';

/**
 * Per-head products in the token-major layouts the MLA paths keep, one GEMM dispatch (workgroup z =
 * head), with no transposes around it:
 *
 *   out[t, h, :] = x[t, h, :] · w[h]     x [T,N,K] (each head its own rows), w [N,K,E] → out [T,N,E]
 *   out[t, h, :] = x[t, :]    · w[h]     x [T,K]   (shared by every head)
 *
 * The absorbed MQA products are of this form: ql_nope = q_nope·W_UK_T per head ([T,N,P]·[N,P,L]),
 * attn_out_heads = attn_out_latent·W_UV ([T,N,L]·[N,L,V]), and the probe-only v = kv_c_normed·W_UV.
 * tf.matMul needs them heads-major: a transpose of x before and of the result after (1 GB each at
 * T = 8192 for the latent). Limits as gemm.ts (each operand within the binding limit; T/bm and N
 * within the workgroups per dimension).
 */
export function planGemmHeads(x: Operand, w: Operand, limits: GemmLimits, tiles?: GemmTiles): GemmPlan {
  if (x.shape.length !== 2 && x.shape.length !== 3) throw bad(`heads: x must be [T,N,K] or [T,K], got [${x.shape}]`);
  if (w.shape.length !== 3) throw bad(`heads: w must be [N,K,E], got [${w.shape}]`);
  for (const [name, t] of [
    ['x', x],
    ['w', w],
  ] as const) {
    if (t.dtype !== 'float32') throw bad(`heads: ${name} must be float32, got ${t.dtype}`);
  }
  const [N, K, E] = w.shape as [number, number, number];
  const T = x.shape[0]!;
  const shared = x.shape.length === 2;
  if (!shared && x.shape[1] !== N) throw bad(`heads: x has ${x.shape[1]} heads, w has ${N}`);
  if (x.shape[x.shape.length - 1] !== K) throw bad(`heads: x has rows of ${x.shape[x.shape.length - 1]}, w takes ${K}`);
  const strides = { lda: shared ? K : N * K, aBatch: shared ? 0 : K, aOff: 0, ldb: E, bBatch: K * E, ldc: N * E, cBatch: E };
  return finishPlan(
    { batch: N, M: T, N: E, K, broadcastB: false, strides, outputShape: [T, N, E] },
    [
      ['x', x.shape.reduce((a, b) => a * b, 1)],
      ['w', N * K * E],
      ['out', T * N * E],
    ],
    limits,
    tiles,
  );
}

/** x·w per head on the webgpu backend; see planGemmHeads. */
export function gemmHeads(tf: typeof tfc, x: tfc.Tensor2D | tfc.Tensor3D, w: tfc.Tensor3D, tiles?: GemmTiles): tfc.Tensor3D {
  if (tf.getBackend() !== 'webgpu') {
    throw new MlaDiffError('device-unavailable', `gemmHeads runs on webgpu; the backend is ${tf.getBackend()}`, { field: 'gemm' });
  }
  const backend = webgpuBackend(tf);
  return runGemm(tf, planGemmHeads(x, w, backend.device.limits as unknown as GemmLimits, tiles), x, w) as tfc.Tensor3D;
}
