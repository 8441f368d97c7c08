import { DIFF_WIDTH } from '../../core/probes/diff-partials';
import { SCALED_WGSL, treeWgsl, unrolledWgsl } from './stats-wgsl';

/**
 * The WGSL of the pair-diff kernel (diff-kernel.ts launches it; src/core/probes/diff-partials.ts has the
 * partials' layout). One workgroup of DF_WG threads reduces DF_GROUP consecutive elements of a and b:
 * thread t loads elements t + j·DF_WG of both (coalesced, all loads issued first) and classifies each pair
 * on its bits (NaN, ±Inf: no float compare a compiler may fold); a pairwise tree finds the group's largest
 * finite |a|, |b|; then the finite pairs, scaled by the exact power of two that brings that into [1, 2), give
 * Σ(a−b)², Σa², Σb², Σab and the largest |a − b| (ties: lowest offset), per thread then pairwise: no float32
 * overflow, no drift, and a difference of subnormals is not flushed to 0 (the H200 flushes float32 subnormals).
 */
export const DF_WG = 256;
export const DF_PER = 32;
export const DF_GROUP = DF_WG * DF_PER;

const NONE = '0xffffffffu';

const unrolled = (body: (j: number) => string): string => unrolledWgsl(DF_PER, body);
const tree = (body: string): string => treeWgsl(DF_WG, body);

/** The WGSL (tfjs's makeShader adds the bindings A, B, result and the uniforms n, groups). */
export function diffShader(): string {
  return `
var<workgroup> dfBits: array<u32, ${DF_WG}>;
var<workgroup> dfAt: array<u32, ${DF_WG}>;
var<workgroup> dfTop: array<u32, ${DF_WG}>;
var<workgroup> dfNanA: array<u32, ${DF_WG}>;
var<workgroup> dfNanB: array<u32, ${DF_WG}>;
var<workgroup> dfInf: array<u32, ${DF_WG}>;
var<workgroup> dfSum: array<vec4<f32>, ${DF_WG}>;
${SCALED_WGSL}
fn main(index: i32) {
  let t = localIndex;
  let g = workgroupId.y * numWorkgroups.x + workgroupId.x;
  let n = u32(uniforms.n);
  let live = g < u32(uniforms.groups);
  var va: array<u32, ${DF_PER}>; // the loaded bits; then those of the finite pairs, 0 elsewhere
  var vb: array<u32, ${DF_PER}>;
  let base = g * ${DF_GROUP}u + t;
  let last = max(n, 1u) - 1u;
${Array.from({ length: DF_PER }, (_, j) => `  va[${j}] = bitcast<u32>(A[min(base + ${j * DF_WG}u, last)]);`).join('\n')}
${Array.from({ length: DF_PER }, (_, j) => `  vb[${j}] = bitcast<u32>(B[min(base + ${j * DF_WG}u, last)]);`).join('\n')}
  var top = 0u;
  var nanA = 0u;
  var nanB = 0u;
  var inf = 0u;
${unrolled(
  (j) => `
    let local = t + ${j * DF_WG}u;
    var x = 0u;
    var y = 0u;
    if (live && g * ${DF_GROUP}u + local < n) {
      let ua = va[${j}];
      let ub = vb[${j}];
      let ma = ua & 0x7fffffffu;
      let mb = ub & 0x7fffffffu;
      if (ma > 0x7f800000u || mb > 0x7f800000u) {
        nanA = nanA + select(0u, 1u, ma > 0x7f800000u);
        nanB = nanB + select(0u, 1u, mb > 0x7f800000u);
      } else if (ma == 0x7f800000u || mb == 0x7f800000u) {
        inf = inf + select(0u, 1u, ua != ub);
      } else {
        x = ua;
        y = ub;
        top = max(top, max(ma, mb));
      }
    }
    va[${j}] = x;
    vb[${j}] = y;`,
)}
  dfTop[t] = top;
  dfNanA[t] = nanA;
  dfNanB[t] = nanB;
  dfInf[t] = inf;
  workgroupBarrier();${tree(`
      dfTop[t] = max(dfTop[t], dfTop[t + s]);
      dfNanA[t] = dfNanA[t] + dfNanA[t + s];
      dfNanB[t] = dfNanB[t] + dfNanB[t + s];
      dfInf[t] = dfInf[t] + dfInf[t + s];`)}
  let e = clamp(127 - i32(dfTop[0] >> 23u), -126, 126);
  var sum = vec4<f32>(0.0);
  var bits = 0u;
  var at = ${NONE};
${unrolled(
  (j) => `
    let local = t + ${j * DF_WG}u;
    let xa = stScaled(va[${j}], e);
    let xb = stScaled(vb[${j}], e);
    let d = xa - xb;
    sum = sum + vec4<f32>(d * d, xa * xa, xb * xb, xa * xb);
    let db = bitcast<u32>(abs(d));
    if (live && g * ${DF_GROUP}u + local < n && (va[${j}] | vb[${j}]) != 0u && (db > bits || at == ${NONE})) { bits = db; at = local; }`,
)}
  dfSum[t] = sum;
  dfBits[t] = bits;
  dfAt[t] = at;
  workgroupBarrier();${tree(`
      dfSum[t] = dfSum[t] + dfSum[t + s];
      let b2 = dfBits[t + s];
      let a2 = dfAt[t + s];
      if (a2 != ${NONE} && (dfAt[t] == ${NONE} || b2 > dfBits[t] || (b2 == dfBits[t] && a2 < dfAt[t]))) {
        dfBits[t] = b2;
        dfAt[t] = a2;
      }`)}
  if (t == 0u && live) {
    let o = g * ${DIFF_WIDTH}u;
    let total = dfSum[0];
    result[o] = total.x;
    result[o + 1u] = total.y;
    result[o + 2u] = total.z;
    result[o + 3u] = total.w;
    result[o + 4u] = f32(e);
    result[o + 5u] = bitcast<f32>(dfBits[0]);
    result[o + 6u] = select(f32(dfAt[0]), -1.0, dfAt[0] == ${NONE});
    result[o + 7u] = f32(dfNanA[0]);
    result[o + 8u] = f32(dfNanB[0]);
    result[o + 9u] = f32(dfInf[0]);
  }
}
`;
}
