import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';
import { mergeFlashParts } from './flash-merge';
import type { FlashLimits, FlashRequest, FlashResult } from './flash-plan';
import { planFlash } from './flash-plan';
import { FLASH_UNIFORMS, flashShader, flashShaderKey } from './flash-wgsl';

export type { FlashLimits, FlashMask, FlashPlan, FlashRequest, FlashResult } from './flash-plan';
export { planFlash } from './flash-plan';

/**
 * Fused causal attention on tfjs-backend-webgpu (fp32): softmax(scale·q·kᵀ + mask)·v with an
 * online softmax over key tiles, never forming the [A,B,S] scores. Same results as the unfused
 * `attend` of backends/attention.ts on masked logits (the oracle), within fp32 rounding.
 *
 * Inputs (float32, row-major, contiguous), layout 'heads' (the default):
 *   q [A,B,D]        A heads (MHA) or 1 (MQA: rows b = t·N + h, the N heads of token t packed)
 *   k [A|1,S,D]      keys; a leading 1 is shared by every head
 *   v [A|1,S,E]      values, or null: V = the first E columns of k (the MLA latent, D = L+R,
 *                    E = L; no separate V tensor is read)
 * or layout 'tokens' (the MHA path's own [T,N,·] tensors, no transposes around the kernel):
 *   q [B,A,D], k [S,A|1,D], v [S,A|1,E] or null; out [B,A,E] (lse and max stay [A,B]).
 * Mask: null = every key visible (a context chunk); { offset, rowsPerToken }: row b sees keys
 *   s ≤ offset + floor(b / rowsPerToken) (MHA: rowsPerToken 1, offset = the piece's first key
 *   index; MQA: rowsPerToken N). offset may be negative (a key range past some queries).
 * Results: out [A,B,E]; lse [A,B] natural log; max [A,B] the largest visible logit (scaled).
 *   A row with no visible key: out 0, lse −inf, max −inf. S = 0: out 0, lse per `emptyLse`
 *   (default −inf), max −inf.
 * Limits (checked, MlaDiffError 'device-limit'): each of q, k, v and the packed output
 *   A·B·(E+2) floats within the device's maxStorageBufferBindingSize (2 GiB − 4 on the H200,
 *   128 MiB on lavapipe): the caller chunks by heads or rows; ceil(B / tiles.rows) and A at most
 *   maxComputeWorkgroupsPerDimension (65535); the tiles' workgroup memory and threads within the
 *   device's limits. Logits below −1e38 count as masked. Tiles: req.tiles, else defaultTiles(D, E,
 *   the device's limits, B) (flash-tiles.ts).
 * Split-KV: with few row blocks over many keys (a decode) the keys are cut into parts, one
 *   workgroup each, merged by LSE in a second program (splitKv, flash-merge.ts); `splits` forces it.
 * Cost: one dispatch (two with split-KV) and three slices (out/lse/max are copies out of the packed output).
 */

/** Fused attention on the webgpu backend; see the header for layouts, mask and limits. */
export function flashAttention(tf: typeof tfc, req: FlashRequest): FlashResult {
  if (tf.getBackend() !== 'webgpu') {
    throw new MlaDiffError('device-unavailable', `flashAttention runs on webgpu; the backend is ${tf.getBackend()}`, {
      field: 'flashAttention',
    });
  }
  const backend = webgpuBackend(tf);
  const { A, B, S, D, E, vFromK, tokens, Ak, Av, tiles, splits, splitKeys } = planFlash(
    req,
    backend.device.limits as unknown as FlashLimits,
  );
  if (S === 0 || A * B === 0) {
    const empty = S === 0 && req.emptyLse === '+inf' ? Infinity : -Infinity;
    return { out: tf.zeros(tokens ? [B, A, E] : [A, B, E]), lse: tf.fill([A, B], empty), max: tf.fill([A, B], -Infinity) };
  }
  const program: WebgpuProgram = {
    outputShape: [splits * A * B * (E + 2)],
    shaderKey: flashShaderKey(tiles, D, E, vFromK),
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(B / tiles.rows), A, splits],
    workgroupSize: [tiles.threads, 1, 1],
    variableNames: vFromK ? ['Q', 'K'] : ['Q', 'K', 'V'],
    uniforms: FLASH_UNIFORMS,
    getUserCode: () => flashShader(tiles, D, E, vFromK),
  };
  const info = (t: tfc.Tensor): tfc.TensorInfo => ({ dataId: t.dataId, shape: t.shape, dtype: 'float32' });
  const inputs = [info(req.q), info(req.k), ...(req.v ? [info(req.v)] : [])];
  const int = (x: number): WebgpuUniform => ({ type: 'int32', data: [x] });
  // Per-head and per-row strides: head-major [H,R,W] → (R·W, W); token-major [R,H,W] → (W, H·W); one shared head → 0.
  const strides = (heads: number, rows: number, width: number): [number, number] =>
    tokens ? [heads === 1 ? 0 : width, heads * width] : [heads === 1 ? 0 : rows * width, width];
  // Split-KV partials stay head-major (the merge pairs each out row with its lse row); out is transposed after.
  const outTokens = tokens && splits === 1;
  const uniforms = [
    int(A),
    int(B),
    int(S),
    int(req.mask?.offset ?? 0),
    int(req.mask?.rowsPerToken ?? 1),
    int(req.mask ? 1 : 0),
    ...[
      ...(tokens ? strides(A, B, D) : [B * D, D]),
      ...strides(Ak, S, D),
      ...(req.v ? strides(Av, S, E) : [0, 0]),
      ...(outTokens ? [E, A * E] : [B * E, E]),
    ].map(int),
    int(splitKeys),
    { type: 'float32' as const, data: [req.scale] },
  ];
  const n = A * B;
  // [splits·A·B·(E+2)]
  const parts = tf.engine().makeTensorFromTensorInfo(backend.runWebGPUProgram(program, inputs, 'float32', uniforms)) as tfc.Tensor1D;
  const packed = splits > 1 ? mergeFlashParts(tf, parts, splits, n, E) : parts; // [A·B·(E+2)]
  if (splits > 1) parts.dispose();
  const result = tf.tidy(() => ({
    out: (outTokens
      ? tf.reshape(tf.slice(packed, [0], [n * E]), [B, A, E]) // [B,A,E]
      : tokens
        ? tf.transpose(tf.reshape(tf.slice(packed, [0], [n * E]), [A, B, E]), [1, 0, 2]) // split-KV: [A,B,E] → [B,A,E]
        : tf.reshape(tf.slice(packed, [0], [n * E]), [A, B, E])) as tfc.Tensor3D, // [A,B,E]
    lse: tf.reshape(tf.slice(packed, [n * E], [n]), [A, B]) as tfc.Tensor2D, // [A,B]
    max: tf.reshape(tf.slice(packed, [n * E + n], [n]), [A, B]) as tfc.Tensor2D, // [A,B]
  }));
  packed.dispose();
  return result;
}
