import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';

/**
 * The LSE bounds check (attention.ts lseBoundViolations, the oracle) in one webgpu program, where
 * the tfjs ops take 10 (two scalar uploads among them): a finite lse must lie in
 * [max − s, max + ln(keys) + s], s = slack + relSlack·|lse|. Each workgroup strides over its share
 * of the elements and counts the violations (comparisons with NaN are false, as in tfjs); keys
 * broadcast over lse's rows, its columns or all of it. One workgroup up to LB_ONE elements (the
 * count is its output); past that one per LB_ONE elements (a GLM-5 step at T = 8192 has 524 288:
 * 0.8–1.1 ms for one workgroup on the H200), their counts summed by one more program. Returns the
 * count as an int32 scalar.
 */
export type LseBoundsKernel = (lse: tfc.Tensor, max: tfc.Tensor, keys: tfc.Tensor, relSlack: number, slack: number) => tfc.Scalar;

const WG = 256;
/** Elements per workgroup past which the check spreads over several. */
export const LB_ONE = 65536;

const CODE = `
var<workgroup> lbCount: array<i32, ${WG}>;
fn lbFinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
fn main(index: i32) {
  let t = i32(localIndex);
  var n = 0;
  let g = i32(workgroupId.x);
  let end = min(uniforms.size, (g + 1) * uniforms.per);
  for (var i = g * uniforms.per + t; i < end; i += ${WG}) {
    let l = LSE[i];
    let m = MAX[i];
    let k = KEYS[(i / uniforms.kdiv) % uniforms.kmod];
    let s = uniforms.slack + uniforms.relSlack * abs(l);
    // No key: ln 0 = −inf, and l > m + (−inf) + s holds unless m is +inf or NaN.
    let hi = select(lbFinite(m) || (m < 0.0), (l > m + log(k) + s), (k > 0.0));
    if (lbFinite(l) && (l < m - s || hi)) { n = n + 1; }
  }
  lbCount[t] = n;
  workgroupBarrier();
  for (var w = ${WG / 2}; w > 0; w = w >> 1u) {
    if (t < w) { lbCount[t] = lbCount[t] + lbCount[t + w]; }
    workgroupBarrier();
  }
  if (t == 0) { result[g] = lbCount[0]; }
}
`;

/** (kdiv, kmod) such that keys[(i / kdiv) % kmod] is element i's key count, or null when keys does not broadcast that way. */
export function keyIndexing(lse: readonly number[], keys: readonly number[]): { kdiv: number; kmod: number } | null {
  const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
  const [n, k] = [size(lse), size(keys)];
  if (k === 1) return { kdiv: 1, kmod: 1 };
  if (k === n) return { kdiv: 1, kmod: n };
  if (lse.length === 2 && keys.length === 2) {
    const [a, b] = lse as [number, number];
    if (keys[0] === 1 && keys[1] === b) return { kdiv: 1, kmod: b }; // [1,B] over the rows of [A,B]
    if (keys[0] === a && keys[1] === 1) return { kdiv: b, kmod: a }; // [A,1] over the columns
  }
  return null;
}

export function lseBoundsKernel(
  tf: typeof tfc,
  lse: tfc.Tensor,
  max: tfc.Tensor,
  keys: tfc.Tensor,
  relSlack: number,
  slack: number,
): tfc.Scalar {
  if (tf.getBackend() !== 'webgpu')
    throw new MlaDiffError('device-unavailable', `lse bounds kernel runs on webgpu; the backend is ${tf.getBackend()}`, {
      field: 'kernels',
    });
  const ix = keyIndexing(lse.shape, keys.shape);
  if (lse.size !== max.size || !ix || [lse, max, keys].some((x) => x.dtype !== 'float32')) {
    throw new MlaDiffError(
      'invalid-value',
      `lse bounds: lse [${lse.shape}], max [${max.shape}] and keys [${keys.shape}] must be float32, ` +
        'max as large as lse and keys broadcast over its rows, columns or all of it',
      { field: 'kernels' },
    );
  }
  if (lse.size === 0) return tf.scalar(0, 'int32');
  const backend = webgpuBackend(tf);
  const groups = Math.ceil(lse.size / LB_ONE);
  const program: WebgpuProgram = {
    outputShape: groups > 1 ? [groups] : [],
    shaderKey: `mlaLseBounds_w${WG}`,
    dispatchLayout: { x: [0] },
    dispatch: [groups, 1, 1],
    workgroupSize: [WG, 1, 1],
    variableNames: ['LSE', 'MAX', 'KEYS'],
    uniforms: 'size : i32, per : i32, kdiv : i32, kmod : i32, slack : f32, relSlack : f32,',
    getUserCode: () => CODE,
  };
  const info = (t: tfc.Tensor): tfc.TensorInfo => ({ dataId: t.dataId, shape: [t.size], dtype: 'float32' });
  const int = (v: number): WebgpuUniform => ({ type: 'int32', data: [v] });
  const f32 = (v: number): WebgpuUniform => ({ type: 'float32', data: [v] });
  const uniforms = [int(lse.size), int(LB_ONE), int(ix.kdiv), int(ix.kmod), f32(slack), f32(relSlack)];
  const counts = tf.engine().makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [lse, max, keys].map(info), 'int32', uniforms));
  if (groups === 1) return counts as tfc.Scalar;
  const total = tf.sum(counts);
  counts.dispose();
  return total as tfc.Scalar;
}
