import type * as tfc from '@tensorflow/tfjs-core';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';

/**
 * The LSE merge of split-KV partials on tfjs-backend-webgpu (flash-decoding's second stage; vLLM's
 * merge_attn_states and Triton MLA's stage 2 generalised to Z parts): Z packed partial results of
 * the flash program over disjoint key ranges, each [out n·E | lse n | max n] for n = A·B rows,
 * concatenated as one flat [Z·n·(E+2)] tensor, become one packed [n·(E+2)]:
 *   m = max_z lse_z, w_z = exp(lse_z − m), out = Σ w_z·out_z / Σ w_z, lse = m + ln Σ w_z,
 *   max = max_z max_z.
 * A part whose rows saw no key (lse −inf) weighs 0; a row no part saw stays out 0, lse −inf,
 * max −inf, as the unsplit kernel writes it. Natural log throughout, fp32.
 */
export function mergeFlashParts(tf: typeof tfc, parts: tfc.Tensor1D, Z: number, n: number, E: number): tfc.Tensor1D {
  const backend = webgpuBackend(tf);
  const total = n * (E + 2);
  if (parts.size !== Z * total) throw new Error(`mergeFlashParts: ${parts.size} values for ${Z} parts of ${n} rows × ${E + 2}`);
  const WG = 256;
  const groups = Math.ceil(total / WG);
  const gx = Math.min(groups, 32768);
  const program: WebgpuProgram = {
    outputShape: [total],
    shaderKey: 'mlaFlashMerge',
    dispatchLayout: { x: [0] },
    dispatch: [gx, Math.ceil(groups / gx), 1],
    workgroupSize: [WG, 1, 1],
    variableNames: ['Parts'],
    uniforms: 'Z : i32, n : i32, E : i32, gx : i32,',
    getUserCode: () => MERGE_WGSL,
  };
  const int = (x: number): WebgpuUniform => ({ type: 'int32', data: [x] });
  const info = { dataId: parts.dataId, shape: parts.shape, dtype: 'float32' as const };
  return tf
    .engine()
    .makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [info], 'float32', [int(Z), int(n), int(E), int(gx)])) as tfc.Tensor1D;
}

// Empty parts are told by lse < −1e38 (no arithmetic on ±inf, which WGSL need not honour).
const MERGE_WGSL = `
const FM_LIMIT = -1.0e38;
fn main(index: i32) {
  let n = uniforms.n;
  let E = uniforms.E;
  let Z = uniforms.Z;
  let P = n * (E + 2);
  let i = (i32(workgroupId.y) * uniforms.gx + i32(workgroupId.x)) * 256 + i32(localIndex);
  if (i >= P) { return; }
  let neg = -uniforms.INFINITY;
  if (i >= n * E + n) { // the row's largest visible logit
    var mx = -3.0e38;
    for (var z = 0; z < Z; z++) { mx = max(mx, Parts[z * P + i]); }
    result[i] = select(neg, mx, mx > FM_LIMIT);
    return;
  }
  let row = select(i / E, i - n * E, i >= n * E);
  var m = -3.0e38;
  for (var z = 0; z < Z; z++) { m = max(m, Parts[z * P + n * E + row]); }
  if (m <= FM_LIMIT) { result[i] = select(0.0, neg, i >= n * E); return; } // no part saw a key
  var sum = 0.0;
  var acc = 0.0;
  for (var z = 0; z < Z; z++) {
    let l = Parts[z * P + n * E + row];
    var w = 0.0;
    if (l > FM_LIMIT) { w = exp(l - m); }
    sum = sum + w;
    if (i < n * E && w > 0.0) { acc = acc + w * Parts[z * P + i]; }
  }
  if (i < n * E) { result[i] = acc / sum; } else { result[i] = m + log(sum); }
}
`;
