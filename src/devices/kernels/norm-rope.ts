import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { RopeStyle } from '../../core/model/rope';
import type { WebgpuBackend, WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';

/**
 * RMSNorm and RoPE on tfjs-backend-webgpu, one program each, where tfjs ops take 6 (square, mean,
 * add ε, rsqrt, two products) and 9 (two slices, four products, sub, add, stack): the pre-attention
 * of a GLM-5 step issues 3 norms and 2 rotations, and at T ≤ 2048 a step's time is mostly the host
 * issuing programs (at T = 512 on the H200, 3.3–4.0 ms of a path's 8.8 ms step). Same arithmetic as the tfjs ops (shared.ts rmsNorm and
 * applyRope, the oracles): x·rsqrt(mean(x²) + ε)·w with the mean in fp32, and per rotated pair
 * (a, b): a·cos − b·sin, b·cos + a·sin; only the order of the squares' sum differs, and a compiler
 * may fuse a product into an add (~1 ulp).
 */

const WG = 256;

const bad = (message: string): MlaDiffError => new MlaDiffError('invalid-value', message, { field: 'kernels' });

function webgpu(tf: typeof tfc, what: string): WebgpuBackend {
  if (tf.getBackend() !== 'webgpu')
    throw new MlaDiffError('device-unavailable', `${what} runs on webgpu; the backend is ${tf.getBackend()}`, { field: 'kernels' });
  return webgpuBackend(tf);
}

/** Workgroups over x, spilling into y past the device's per-dimension cap. */
function spread(backend: WebgpuBackend, groups: number): [number, number, number] {
  const cap = backend.device.limits['maxComputeWorkgroupsPerDimension'] ?? 65535;
  const x = Math.max(1, Math.min(groups, cap));
  return [x, Math.ceil(groups / x), 1];
}

const info = (t: tfc.Tensor): tfc.TensorInfo => ({ dataId: t.dataId, shape: t.shape, dtype: 'float32' });
const int = (v: number): WebgpuUniform => ({ type: 'int32', data: [v] });

const RMS_CODE = `
var<workgroup> rnSum: array<f32, ${WG}>;
fn main(index: i32) {
  let t = i32(localIndex);
  let row = i32(workgroupId.y * numWorkgroups.x + workgroupId.x);
  let cols = uniforms.cols;
  let live = row < uniforms.rows;
  var s = 0.0;
  if (live) {
    for (var c = t; c < cols; c += ${WG}) { let v = X[row * cols + c]; s = s + v * v; }
  }
  rnSum[t] = s;
  workgroupBarrier();
  for (var k = ${WG / 2}; k > 0; k = k >> 1u) {
    if (t < k) { rnSum[t] = rnSum[t] + rnSum[t + k]; }
    workgroupBarrier();
  }
  if (live) {
    let inv = inverseSqrt(rnSum[0] / f32(cols) + uniforms.eps);
    for (var c = t; c < cols; c += ${WG}) { result[row * cols + c] = X[row * cols + c] * inv * W[c]; }
  }
}
`;

/** RMSNorm over the last axis of x [..., C] with weight w [C]: one workgroup per row. */
export function rmsNormKernel(tf: typeof tfc, x: tfc.Tensor, w: tfc.Tensor1D, eps: number): tfc.Tensor {
  const cols = x.shape[x.rank - 1] ?? 1;
  if (x.dtype !== 'float32' || w.dtype !== 'float32' || w.size !== cols)
    throw bad(`rmsNorm: x [${x.shape}] and w [${w.shape}] must be float32 with w as long as x's last axis`);
  const backend = webgpu(tf, 'rmsNorm');
  const rows = x.size / cols;
  if (x.size === 0) return tf.zeros(x.shape);
  const program: WebgpuProgram = {
    outputShape: x.shape.slice(),
    shaderKey: `mlaRmsNorm_w${WG}`,
    dispatchLayout: { x: [0] },
    dispatch: spread(backend, rows),
    workgroupSize: [WG, 1, 1],
    variableNames: ['X', 'W'],
    uniforms: 'rows : i32, cols : i32, eps : f32,',
    getUserCode: () => RMS_CODE,
  };
  const uniforms = [int(rows), int(cols), { type: 'float32' as const, data: [eps] }];
  return tf.engine().makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [info(x), info(w)], 'float32', uniforms));
}

function ropeCode(style: RopeStyle): string {
  const [a, b] = style === 'gptj' ? ['base + 2 * j', 'base + 2 * j + 1'] : ['base + j', 'base + j + h'];
  return `
fn main(index: i32) {
  let i = i32((workgroupId.y * numWorkgroups.x + workgroupId.x) * ${WG}u + localIndex);
  let h = uniforms.half;
  if (i >= uniforms.pairs) { return; }
  let perToken = uniforms.inner * h;
  let t = i / perToken;
  let m = (i % perToken) / h;
  let j = i % h;
  let base = (t * uniforms.inner + m) * 2 * h;
  let c = COS[t * h + j];
  let s = SIN[t * h + j];
  let xa = X[${a}];
  let xb = X[${b}];
  result[${a}] = xa * c - xb * s;
  result[${b}] = xb * c + xa * s;
}
`;
}

/**
 * x [T, ..., R] rotated by cos/sin [T, R/2] (broadcast over the middle axes): GPT-J pairs
 * (2i, 2i+1) or NeoX pairs (i, i + R/2), as shared.ts applyRope.
 */
export function ropeKernel(tf: typeof tfc, x: tfc.Tensor, cos: tfc.Tensor2D, sin: tfc.Tensor2D, style: RopeStyle): tfc.Tensor {
  const T = x.shape[0] ?? 0;
  const R = x.shape[x.rank - 1] ?? 0;
  const half = R / 2;
  if (
    x.rank < 2 ||
    R % 2 !== 0 ||
    x.dtype !== 'float32' ||
    cos.shape[0] !== T ||
    cos.shape[1] !== half ||
    sin.shape[0] !== T ||
    sin.shape[1] !== half
  ) {
    throw bad(`rope: x [${x.shape}] needs an even last axis and cos/sin [${T}, ${half}], got [${cos.shape}], [${sin.shape}]`);
  }
  const backend = webgpu(tf, 'rope');
  if (x.size === 0) return tf.zeros(x.shape);
  const pairs = x.size / 2;
  const program: WebgpuProgram = {
    outputShape: x.shape.slice(),
    shaderKey: `mlaRope_${style}_w${WG}`,
    dispatchLayout: { x: [0] },
    dispatch: spread(backend, Math.ceil(pairs / WG)),
    workgroupSize: [WG, 1, 1],
    variableNames: ['X', 'COS', 'SIN'],
    uniforms: 'pairs : i32, half : i32, inner : i32,',
    getUserCode: () => ropeCode(style),
  };
  const uniforms = [int(pairs), int(half), int(x.size / (T * R))];
  return tf.engine().makeTensorFromTensorInfo(backend.runWebGPUProgram(program, [info(x), info(cos), info(sin)], 'float32', uniforms));
}
