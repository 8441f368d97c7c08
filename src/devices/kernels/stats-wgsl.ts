import { PARTIAL_WIDTH } from '../../core/probes/stats-partials';

/**
 * The WGSL of the probes' one-pass statistics kernel (stats-kernel.ts has the launch and the layout
 * it reduces; src/core/probes/stats-partials.ts the partials' layout).
 */
export const ST_WG = 256;
export const ST_PER = 64; // 16 384 elements per group: 4× fewer partials (and tree reductions) than 16 per thread
export const STATS_GROUP = ST_WG * ST_PER;

const NONE = '0xffffffffu';

/** A thread's loop over its `per` elements, unrolled: constant indices keep its values in registers (a loop left them in memory). */
export const unrolledWgsl = (per: number, body: (j: number) => string): string =>
  Array.from({ length: per }, (_, j) => `  {${body(j)}\n  }`).join('\n');
const unrolled = (body: (j: number) => string): string => unrolledWgsl(ST_PER, body);

/** A pairwise reduction over a workgroup of `size` threads (thread t, stride s): `body` folds element t + s into t. */
export const treeWgsl = (size: number, body: string): string => `
  for (var s = ${size / 2}u; s > 0u; s = s >> 1u) {
    if (t < s) {${body}
    }
    workgroupBarrier();
  }`;

/** WGSL fn stScaled(u, e): the finite float32 of bits u times 2^e, on its bits (also the diff kernel's, diff-wgsl.ts). */
export const SCALED_WGSL = `
// The finite value with bits u times 2^e, on the bits (a float multiply gets factored out of the
// sum by LLVM under lavapipe, and Σx overflowed); results below 2^-126 (negligible next to the
// group's largest |x|, scaled into [1, 4)) are 0.
fn stScaled(u: u32, e: i32) -> f32 {
  var b = u & 0x7fffffffu;
  var shift = e;
  if (b < 0x00800000u) { b = bitcast<u32>(f32(b)); shift = e - 149; } // subnormal m·2^-149, or 0
  let ne = i32(b >> 23u) + shift;
  if (b == 0u || ne <= 0) { return 0.0; }
  return bitcast<f32>((u & 0x80000000u) | (u32(ne) << 23u) | (b & 0x7fffffu));
}
`;

/** Per-input helpers of a k-input launch: tensor i's first group and its size (bindings cannot be indexed). */
function inputHelpers(k: number): string {
  const cases = (f: (i: number) => string, dflt: string) =>
    `switch i {\n${Array.from({ length: k }, (_, i) => `    case ${i}u: { ${f(i)} }`).join('\n')}\n    default: { ${dflt} }\n  }`;
  return `
fn stStart(i: u32) -> u32 {
  ${cases((i) => `return u32(uniforms.g${i});`, 'return 0u;')}
}
fn stSize(i: u32) -> u32 {
  ${cases((i) => `return u32(uniforms.n${i});`, 'return 0u;')}
}
`;
}

/**
 * The thread's ST_PER loads, all issued before any is used: one switch on the input outside them
 * (a switch per load left each load waiting on the one before: 236 GB/s on the H200), indices
 * clamped into the tensor rather than branched on (the elements past its end are masked later).
 */
function loads(k: number): string {
  const body = (i: number) =>
    Array.from({ length: ST_PER }, (_, j) => `v[${j}] = bitcast<u32>(X${i}[min(base + ${j * ST_WG}u, last)]);`).join(' ');
  return `switch xi {\n${Array.from({ length: k }, (_, i) => `    case ${i}u: { ${body(i)} }`).join('\n')}\n    default: { }\n  }`;
}

/** Uniforms of a k-input launch: each input's size and first group, then the total groups. */
export const statsUniforms = (k: number): string =>
  `${Array.from({ length: k }, (_, i) => `n${i} : i32, g${i} : i32,`).join(' ')} groups : i32,`;

/** The WGSL of a k-input launch (tfjs's makeShader adds the bindings X0…X(k−1), result and uniforms). */
export function statsShader(k: number): string {
  const tree = (body: string) => treeWgsl(ST_WG, body);
  return `
var<workgroup> stBits: array<u32, ${ST_WG}>;
var<workgroup> stAt: array<u32, ${ST_WG}>;
var<workgroup> stNan: array<u32, ${ST_WG}>;
var<workgroup> stInf: array<u32, ${ST_WG}>;
var<workgroup> stSq: array<f32, ${ST_WG}>;
var<workgroup> stSum: array<f32, ${ST_WG}>;

${SCALED_WGSL}
${inputHelpers(k)}
fn main(index: i32) {
  let t = localIndex;
  let g = workgroupId.y * numWorkgroups.x + workgroupId.x;
  // The input this workgroup reduces (the last whose first group is at or before g), and its group within it.
  var xi = 0u;
  for (var i = 1u; i < ${k}u; i++) { if (g >= stStart(i)) { xi = i; } }
  let n = stSize(xi);
  let lg = g - stStart(xi);
  let live = g < u32(uniforms.groups);
  var v: array<u32, ${ST_PER}>; // the loaded bits; then the finite values' bits, 0 elsewhere
  let base = lg * ${STATS_GROUP}u + t;
  let last = max(n, 1u) - 1u;
  ${loads(k)}
  var bits = 0u;
  var at = ${NONE};
  var nan = 0u;
  var inf = 0u;
${unrolled(
  (j) => `
    let local = t + ${j * ST_WG}u;
    var x = 0u;
    if (live && lg * ${STATS_GROUP}u + local < n) {
      let u = v[${j}];
      let a = u & 0x7fffffffu;
      if (a > 0x7f800000u) { nan = nan + 1u; }
      else if (a == 0x7f800000u) { inf = inf + 1u; }
      else {
        x = u;
        if (a > bits || at == ${NONE}) { bits = a; at = local; }
      }
    }
    v[${j}] = x;`,
)}
  stBits[t] = bits;
  stAt[t] = at;
  stNan[t] = nan;
  stInf[t] = inf;
  workgroupBarrier();${tree(`
      let b2 = stBits[t + s];
      let a2 = stAt[t + s];
      if (b2 > stBits[t] || (b2 == stBits[t] && a2 < stAt[t])) { stBits[t] = b2; stAt[t] = a2; }
      stNan[t] = stNan[t] + stNan[t + s];
      stInf[t] = stInf[t] + stInf[t + s];`)}
  let top = stBits[0];
  let e = clamp(127 - i32(top >> 23u), -126, 126);
  var sq = 0.0;
  var sum = 0.0;
${unrolled(
  (j) => `
    let y = stScaled(v[${j}], e);
    sq = sq + y * y;
    sum = sum + y;`,
)}
  stSq[t] = sq;
  stSum[t] = sum;
  workgroupBarrier();${tree(`
      stSq[t] = stSq[t] + stSq[t + s];
      stSum[t] = stSum[t] + stSum[t + s];`)}
  if (t == 0u && live) {
    let o = g * ${PARTIAL_WIDTH}u;
    result[o] = stSq[0];
    result[o + 1u] = stSum[0];
    result[o + 2u] = f32(e);
    result[o + 3u] = bitcast<f32>(top);
    result[o + 4u] = select(f32(stAt[0]), -1.0, stAt[0] == ${NONE});
    result[o + 5u] = f32(stNan[0]);
    result[o + 6u] = f32(stInf[0]);
  }
}
`;
}
