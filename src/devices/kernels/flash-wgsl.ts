/**
 * The WGSL of the flash-attention program (see flash-attention.ts for the API, layouts and mask;
 * flash-tiles.ts for the tile parameters; flash-wgsl-gemm.ts for the unrolled register code).
 *
 * One workgroup per (block of BR query rows, head); the heavy (late, causal) row blocks are
 * dispatched first. Per key tile of BC keys:
 *   1. S = Q·Kᵀ as a register-tiled micro-GEMM over D in chunks of DC: the Q and K chunks are staged
 *      transposed ([DC][BR], [DC][BC], vec4 along rows/keys; the next chunk is fetched into
 *      registers while the current one is multiplied), each thread accumulates its
 *      scoreRows×scoreKeys logits from scoreRows/4 + scoreKeys/4 vec4 reads per column.
 *   2. Scale (by scale·log2 e: the softmax runs on exp2), mask to the finite sentinel NEG; partial
 *      row maxima → threads t < BR hold each row's running max m and sum l (online softmax), publish
 *      m and α = 2^(m_old − m_new); p = 2^(s − m) is written transposed to Pᵀ [BC][BR]; partial row
 *      sums fold into l once the tile's P is written.
 *   3. O = α·O + P·V as a second micro-GEMM: V staged valueKeys keys × E columns at a time (for
 *      the MLA latent read out of K's first E columns); each thread owns outRows rows × nv strided
 *      vec4 columns of O in registers.
 * No ±inf arithmetic in the loop; the epilogue writes out = O / l, lse = ln 2·(m + log2 l) (natural
 * log), max = ln 2·m (the largest visible scaled logit), and 0 / −inf / −inf for a row that saw no key.
 *
 * Q, K, V and the output are addressed through per-head and per-row strides (uniforms), so the
 * same program reads and writes head-major [A,B,·] or token-major [B,A,·] tensors.
 * The output is one flat f32 array [out A·B·E | lse A·B | max A·B] (a tfjs program has one output;
 * out in the request's layout, lse and max [A,B]); with split-KV, workgroup z covers keys [z·splitKeys, (z+1)·splitKeys) and writes the
 * z-th such
 * partial, merged by flash-merge.ts.
 */
import type { FlashTiles } from './flash-tiles';
import { flashLayout } from './flash-tiles';
import { logitStep, probabilities, registers, rescale, scaleMask, storeOutput, valueStep, zeroLogits } from './flash-wgsl-gemm';
import { transposedChunk, valueStage } from './flash-wgsl-stage';

export type { FlashTiles } from './flash-tiles';
export { defaultTiles, flashShaderKey, tileBytes, tilesProblem } from './flash-tiles';

/** Program uniforms, in the order of the WGSL struct fields below. */
/** Strides (elements): q, k, v and out per head and per row (query, key, output row); head-major or token-major. */
export const FLASH_UNIFORMS =
  'A : i32, B : i32, S : i32, offset : i32, rpt : i32, causal : i32, qHead : i32, qRow : i32, kHead : i32, kRow : i32, ' +
  'vHead : i32, vRow : i32, oHead : i32, oRow : i32, splitKeys : i32, scale : f32,';

/** The user code for tfjs's makeShader: inputs Q, K (and V unless vFromK), output `result`. */
export function flashShader(t: FlashTiles, D: number, E: number, vFromK: boolean): string {
  const l = flashLayout(t, E);
  const q = transposedChunk(t, 'qv', '0', l.qs4, t.rows / 4, (r, d) => `Q[qBase + (${r}) * qRow + ${d}]`, 'b0', 'B');
  const k = transposedChunk(t, 'kv', 'FA_KOFF', l.ks4, t.keys / 4, (r, d) => `K[kBase + (${r}) * kRow + ${d}]`, 's0', 'S');
  const vLoad = (c: number) => (vFromK ? `K[kBase + s * kRow + col + ${c}]` : `V[vBase + s * vRow + col + ${c}]`);
  const vLoads = [0, 1, 2, 3].map((c) => `          if (col + ${c} < FA_E) { v.${'xyzw'[c]} = ${vLoad(c)}; }`).join('\n');
  const v = valueStage(t, l, vLoads);
  // The micro-GEMM loops over a chunk's columns and a V sub-chunk's keys, as loops or unrolled.
  const unrolled = (n: number, body: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => `      {\n${body(i)}\n      }`).join('\n');
  const qkColumns = t.unroll
    ? unrolled(t.chunk, (d) => `        let d = ${d};\n${logitStep(t, l)}`)
    : `      for (var d = 0; d < ${t.chunk}; d++) {\n${logitStep(t, l)}\n      }`;
  const pvKeys = t.unroll
    ? unrolled(t.valueKeys, (c) => `        let c = ${c};\n        let key = c0 + ${c};\n${valueStep(t, l)}`)
    : `      for (var c = 0; c < ${t.valueKeys}; c++) {\n        let key = c0 + c;\n${valueStep(t, l)}\n      }`;
  // Each row's max and sum over the key groups' partials (threads t < rows), as a loop or unrolled.
  const overGroups = (op: (acc: string, x: string) => string, acc: string) =>
    t.unroll
      ? Array.from({ length: l.tx }, (_, j) => `${acc} = ${op(acc, `faRed[${j * t.rows} + t]`)};`).join(' ')
      : `for (var j = 0; j < ${l.tx}; j++) { ${acc} = ${op(acc, `faRed[j * ${t.rows} + t]`)}; }`;
  return `
const FA_D = ${D};
const FA_E = ${E};
const FA_KOFF = ${t.chunk * l.qs4};
const FA_NEG = -3.0e38;
const FA_NEG_LIMIT = -1.0e38;
const FA_LOG2E = 1.4426950408889634;
const FA_LN2 = 0.6931471805599453;

var<workgroup> faStage: array<vec4<f32>, ${l.stage}>;
var<workgroup> faP: array<vec4<f32>, ${l.p}>;
var<workgroup> faRed: array<f32, ${l.red}>;
var<workgroup> faM: array<f32, ${t.rows}>;
var<workgroup> faAlpha: array<f32, ${t.rows}>;
var<workgroup> faTiles: i32;
var<workgroup> faTile0: i32;

fn main(index: i32) {
  let t = i32(localIndex);
  let a = i32(workgroupId.y);
  let b0 = (i32(numWorkgroups.x) - 1 - i32(workgroupId.x)) * ${t.rows};
  let B = uniforms.B;
  let S = uniforms.S;
  // Split-KV: workgroup z covers keys [kLo, kEnd) (splitKeys a multiple of the key tile; one split: all).
  let zSplit = i32(workgroupId.z);
  let kLo = zSplit * uniforms.splitKeys;
  let kEnd = min(kLo + uniforms.splitKeys, S);
  if (t == 0) {
    var end = kEnd;
    if (uniforms.causal != 0) {
      let last = min(b0 + ${t.rows}, B) - 1;
      end = clamp(uniforms.offset + last / uniforms.rpt + 1, 0, kEnd);
    }
    faTiles = (end + ${t.keys - 1}) / ${t.keys};
    faTile0 = kLo / ${t.keys};
  }
  let nTiles = workgroupUniformLoad(&faTiles);
  let tile0 = workgroupUniformLoad(&faTile0); // the split's first key tile (uniform, for the barriers)
  let qBase = a * uniforms.qHead;
  let qRow = uniforms.qRow;
  let kBase = a * uniforms.kHead;
  let kRow = uniforms.kRow;
  let vBase = a * uniforms.vHead;
  let vRow = uniforms.vRow;
  let scale2 = uniforms.scale * FA_LOG2E;
  let sx = t % ${l.tx};
  let sy = t / ${l.tx};
  let ox = t % ${l.ox};
  let oy = t / ${l.ox};
  var rowM = FA_NEG;
  var rowL = 0.0;
${registers(t, l)}
${t.prefetchV ? v.decl : ''}
${q.decl}
${k.decl}
  for (var kt = tile0; kt < nTiles; kt++) {
    let s0 = kt * ${t.keys};
${zeroLogits(t)}
${q.load('0')}
${k.load('0')}
    for (var d0 = 0; d0 < FA_D; d0 += ${t.chunk}) {
      workgroupBarrier();
${q.store}
${k.store}
      workgroupBarrier();
      if (d0 + ${t.chunk} < FA_D) {
${q.load(`d0 + ${t.chunk}`)}
${k.load(`d0 + ${t.chunk}`)}
      }
${qkColumns}
    }
${t.prefetchV ? v.fetch('0') : ''}
    {
      let keys0 = vec4<i32>(s0 + sx * ${t.scoreKeys}) + vec4<i32>(0, 1, 2, 3);
${scaleMask(t)}
    }
    workgroupBarrier();
    if (t < ${t.rows}) {
      var mt = FA_NEG;
      ${overGroups((a, x) => `max(${a}, ${x})`, 'mt')}
      let mNew = max(rowM, mt);
      var alpha = 1.0;
      if (mNew > FA_NEG_LIMIT) { alpha = exp2(rowM - mNew); }
      rowM = mNew;
      rowL = rowL * alpha;
      faM[t] = mNew;
      faAlpha[t] = alpha;
    }
    workgroupBarrier();
    {
${probabilities(t, l)}
${rescale(t, l)}
    }
    for (var c0 = 0; c0 < ${t.keys}; c0 += ${t.valueKeys}) {
      workgroupBarrier();
      if (c0 == 0 && t < ${t.rows}) {
        var sum = 0.0;
        ${overGroups((a, x) => `${a} + ${x}`, 'sum')}
        rowL = rowL + sum;
      }
${t.prefetchV ? v.store : v.direct}
      workgroupBarrier();
${
  t.prefetchV
    ? `      if (c0 + ${t.valueKeys} < ${t.keys}) {
${v.fetch(`c0 + ${t.valueKeys}`)}
      }`
    : ''
}
${pvKeys}
    }
  }
  workgroupBarrier();
  let rows = uniforms.A * B;
  let zOff = zSplit * rows * (FA_E + 2); // this split's packed partial
  if (t < ${t.rows}) {
    faAlpha[t] = rowL;
    if (b0 + t < B) {
      let seen = rowM > FA_NEG_LIMIT;
      let row = a * B + b0 + t;
      result[zOff + rows * FA_E + row] = select(-uniforms.INFINITY, FA_LN2 * (rowM + log2(rowL)), seen);
      result[zOff + rows * FA_E + rows + row] = select(-uniforms.INFINITY, FA_LN2 * rowM, seen);
    }
  }
  workgroupBarrier();
  {
${storeOutput(t, l)}
  }
}
`;
}
