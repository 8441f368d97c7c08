import type * as tfc from '@tensorflow/tfjs-core';
import type { WebgpuProgram } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';
import type { StorageDtype } from '../../core/precision/formats';
import { FORMATS } from '../../core/precision/formats';

/**
 * Runtime.round on tfjs-backend-webgpu: a WGSL kernel doing roundInto's arithmetic on the float32
 * bits in u32 only. Each element is loaded and stored through bitcast, never through float
 * arithmetic, so neither a fused multiply-add nor a GPU that flushes fp32 denormals can change a
 * result: the output is bit for bit the host's (src/core/precision/formats.ts) and the oracle's.
 */

const WORKGROUP = 64;
const f32Bits = (x: number): number => new Uint32Array(new Float32Array([x]).buffer)[0]!;
const hex = (u: number): string => `0x${(u >>> 0).toString(16)}u`;

/** The WGSL of `fn roundBits(u: u32) -> u32` for one format: roundInto's cases, in integers. */
export function roundBitsWgsl(dtype: StorageDtype): string {
  const f = FORMATS[dtype];
  const shift = 23 - f.mantissa;
  const maxBits = f32Bits(f.max);
  const quantumExp = f.emin - f.mantissa; // the format's subnormal spacing is 2^quantumExp
  return `
const ROUND_SHIFT = ${shift}u;
const ROUND_HALF = ${hex((1 << (shift - 1)) - 1)};
const ROUND_KEEP = ${hex(~((1 << shift) - 1))};
const ROUND_MIN_EXP = ${f.emin + 127}u;
const ROUND_MAX = ${hex(maxBits)};
const ROUND_OVERFLOW = ${f.overflow === 'inf' ? '0x7f800000u' : 'ROUND_MAX'};
const ROUND_QUANTUM_SHIFT = ${quantumExp + 150}u;
fn roundBits(u: u32) -> u32 {
  let sign = u & 0x80000000u;
  let a = u & 0x7fffffffu;
  if (a > 0x7f800000u) { return u | 0x00400000u; }
  if (a == 0x7f800000u) { return sign | ROUND_OVERFLOW; }
  let e = a >> 23u;
  if (e >= ROUND_MIN_EXP) {
    var r = (a + ROUND_HALF + ((a >> ROUND_SHIFT) & 1u)) & ROUND_KEEP;
    if (r > ROUND_MAX) { r = ROUND_OVERFLOW; }
    return sign | r;
  }
  // Below the format's smallest normal: a = m * 2^(ee - 150); count whole subnormal quanta
  // n = m / 2^s, s = (quantumExp + 150) - ee, rounded half to even on the remainder.
  var m = a & 0x7fffffu;
  var ee = e;
  if (e == 0u) { ee = 1u; } else { m = m | 0x800000u; }
  let s = ROUND_QUANTUM_SHIFT - ee;
  if (s >= 25u) { return sign; } // m < 2^24 <= 2^(s-1): below half a quantum
  var n = m >> s;
  let rest = m & ((1u << s) - 1u);
  let halfway = 1u << (s - 1u);
  if (rest > halfway || (rest == halfway && (n & 1u) == 1u)) { n = n + 1u; }
  if (n == 0u) { return sign; }
  ${subnormalResult(quantumExp)}
}
`;
}

/**
 * n·2^q (1 <= n <= 2^mantissa) as float32 bits. fp16, fp8 (q >= -126): a float32 normal, exponent
 * from n's leading bit. bf16 (q = -133, q + mantissa = -126): a float32 denormal, n shifted into
 * place (n = 2^7 lands on 2^-126, the smallest normal, with the same shift). No format of
 * StorageDtype has subnormals straddling float32's smallest normal.
 */
function subnormalResult(q: number): string {
  return q >= -126
    ? `let p = firstLeadingBit(n);
  return sign | ((${q + 127}u + p) << 23u) | ((n << (23u - p)) & 0x7fffffu);`
    : `return sign | (n << ${q + 149}u);`;
}

/** One program per format and vector width (4 when the size allows). */
function roundProgram(size: number, dtype: StorageDtype): WebgpuProgram {
  const c = size % 4 === 0 ? 4 : 1;
  const lanes =
    c === 4
      ? 'let v = bitcast<vec4<u32>>(X[index]);\n' +
        '      result[index] = bitcast<vec4<f32>>(vec4<u32>(roundBits(v.x), roundBits(v.y), roundBits(v.z), roundBits(v.w)));'
      : 'result[index] = bitcast<f32>(roundBits(bitcast<u32>(X[index])));';
  return {
    outputShape: [size],
    shaderKey: `mlaRound_${dtype}_${c}`,
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(size / c / WORKGROUP), 1, 1],
    workgroupSize: [WORKGROUP, 1, 1],
    variableNames: ['X'],
    size: true,
    outputComponent: c,
    variableComponents: [c],
    // X and result are read and written raw (tfjs's getX/setOutput helpers are not used).
    getUserCode: () => `${roundBitsWgsl(dtype)}
    fn main(index: i32) {
      if (index < uniforms.size) {
        ${lanes}
      }
    }`,
  };
}

/**
 * x rounded to `dtype` on the GPU: a new float32 tensor, tracked by the engine like any op's
 * output (so tf.tidy disposes it).
 */
export function webgpuRound(tf: typeof tfc, x: tfc.Tensor, dtype: StorageDtype): tfc.Tensor {
  const backend = webgpuBackend(tf);
  const size = x.size;
  const flat: tfc.TensorInfo = { dataId: x.dataId, shape: [size], dtype: 'float32' };
  const out = backend.runWebGPUProgram(roundProgram(size, dtype), [flat], 'float32');
  return tf.engine().makeTensorFromTensorInfo({ dataId: out.dataId, shape: x.shape, dtype: 'float32' });
}
