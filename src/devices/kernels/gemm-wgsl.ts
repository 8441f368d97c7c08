/**
 * The WGSL of the register-tiled GEMM program (see gemm.ts for the API and limits).
 *
 * One workgroup per BM×BN tile of C (dispatch x: column tiles, y: row tiles, z: batch);
 * (BM/TM)·(BN/TN) threads, each owning TM×TN outputs held in registers as TM·TN/4 vec4
 * accumulators (named variables, so no private array is ever indexed). Per k-step of BK:
 * the A tile is stored transposed in workgroup memory ([BK][BM], as vec4 along M) so a thread
 * reads its TM rows as TM/4 vec4; the B tile as [BK][BN]. A thread's rows are the vec4 groups
 * i·TY + ty and its columns the vec4 groups j·TX + tx (strided by the thread grid, so a warp
 * reads consecutive vec4 of B and broadcasts A: no bank conflicts). The tiles are double
 * buffered: the next k-step's global loads are issued into registers before the current tile's
 * products and stored into the other buffer after them, with one barrier per k-step.
 * With `pairs` the loop takes two k-steps per iteration, each with its buffers at constant offsets.
 * Operands are addressed through strides (GemmStrides in gemm.ts: row and batch strides, an offset
 * into A). Global loads are vec4 where the strides allow (A when K and its strides are multiples of
 * 4, B and C when N and theirs are), else scalar loads and stores guarded per element; rows,
 * columns and k past the edges read 0 and are not written, so any M, N, K ≥ 1 is correct.
 */

import type { GemmTiles, GemmVec } from './gemm-tiles';

export type { GemmTiles, GemmVec } from './gemm-tiles';
export {
  DEFAULT_GEMM_TILES,
  FALLBACK_GEMM_TILES,
  MID_GEMM_TILES,
  gemmShaderKey,
  gemmThreads,
  gemmTileBytes,
  gemmTilesProblem,
} from './gemm-tiles';

/** Program uniforms, in the order of the WGSL struct fields. */
export const GEMM_UNIFORMS =
  'M : i32, N : i32, K : i32, lda : i32, aBatch : i32, aOff : i32, ldb : i32, bBatch : i32, ldc : i32, cBatch : i32,';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const C4 = ['x', 'y', 'z', 'w'] as const;

/** Loads of A (row, k..k+3) and B (k, n..n+3) as vec4, zero past the edges. */
function loaders(vec: GemmVec): string {
  const scalar = (name: string, idx: string, ok: (c: number) => string) =>
    `var v = vec4<f32>(0.0);\n${range(4)
      .map((c) => `  if (${ok(c)}) { v.${C4[c]} = ${name}[${idx} + ${c}]; }`)
      .join('\n')}\n  return v;`;
  const a = vec.a
    ? 'if (row < uniforms.M && k < uniforms.K) { return A[(base + row * uniforms.lda + k) / 4]; }\n  return vec4<f32>(0.0);'
    : scalar('A', 'base + row * uniforms.lda + k', (c) => `row < uniforms.M && k + ${c} < uniforms.K`);
  const b = vec.b
    ? 'if (k < uniforms.K && n < uniforms.N) { return B[(base + k * uniforms.ldb + n) / 4]; }\n  return vec4<f32>(0.0);'
    : scalar('B', 'base + k * uniforms.ldb + n', (c) => `k < uniforms.K && n + ${c} < uniforms.N`);
  return (
    `fn gemmLoadA(base: i32, row: i32, k: i32) -> vec4<f32> {\n  ${a}\n}\n` +
    `fn gemmLoadB(base: i32, k: i32, n: i32) -> vec4<f32> {\n  ${b}\n}\n`
  );
}

/** The user code for tfjs's makeShader: inputs A, B, output `result` (vec4 when vec.b). */
export function gemmShader(t: GemmTiles, vec: GemmVec): string {
  const TX = t.bn / t.tn,
    TY = t.bm / t.tm,
    threads = TX * TY;
  const BM4 = t.bm / 4,
    BN4 = t.bn / 4,
    BK4 = t.bk / 4,
    MI = t.tm / 4,
    NJ = t.tn / 4;
  const LA = (t.bm * BK4) / threads,
    LB = (t.bk * BN4) / threads;
  const accs = range(MI).flatMap((i) => range(4).flatMap((r) => range(NJ).map((j) => `acc_${i}_${r}_${j}`)));
  const loadNext = (k0: string) => [
    ...range(LA).map(
      (l) => `la${l} = gemmLoadA(aBase, row0 + (t + ${l * threads}) / ${BK4}, ${k0} + ((t + ${l * threads}) % ${BK4}) * 4);`,
    ),
    ...range(LB).map(
      (l) => `lb${l} = gemmLoadB(bBase, ${k0} + (t + ${l * threads}) / ${BN4}, col0 + ((t + ${l * threads}) % ${BN4}) * 4);`,
    ),
  ];
  const store = (buf: string) => [
    ...range(LA).flatMap((l) => {
      const m = `(t + ${l * threads}) / ${BK4}`,
        k = `((t + ${l * threads}) % ${BK4}) * 4`;
      return range(4).map((c) => `gemmAs[${buf} * ${t.bk * BM4} + (${k} + ${c}) * ${BM4} + (${m}) / 4][(${m}) % 4] = la${l}.${C4[c]};`);
    }),
    ...range(LB).map((l) => `gemmBs[${buf} * ${t.bk * BN4} + t + ${l * threads}] = lb${l};`),
  ];
  const step = (k: number) =>
    [
      ...range(MI).map((i) => `let a${i} = gemmAs[ao + ${k * BM4 + i * TY} + ty];`),
      ...range(NJ).map((j) => `let b${j} = gemmBs[bo + ${k * BN4 + j * TX} + tx];`),
      ...range(MI).flatMap((i) =>
        range(4).flatMap((r) => range(NJ).map((j) => `acc_${i}_${r}_${j} = fma(vec4<f32>(a${i}.${C4[r]}), b${j}, acc_${i}_${r}_${j});`)),
      ),
    ].join('\n      ');
  const write = range(MI).flatMap((i) =>
    range(4).flatMap((r) =>
      range(NJ).map((j) => {
        const acc = `acc_${i}_${r}_${j}`;
        const row = `row0 + (${i * TY} + ty) * 4 + ${r}`,
          col = `col0 + (${j * TX} + tx) * 4`;
        const body = vec.b
          ? `if (col < N) { result[(cBase + row * ldc + col) / 4] = ${acc}; }`
          : range(4)
              .map((c) => `if (col + ${c} < N) { result[cBase + row * ldc + col + ${c}] = ${acc}.${C4[c]}; }`)
              .join(' ');
        return `{ let row = ${row}; let col = ${col}; if (row < M) { ${body} } }`;
      }),
    ),
  );
  // One k-step: the next tile's loads issued, the products from buffer `cur`, the next tile stored into the other.
  const kStep = (kt: string, cur: string, nxt: string) => `    let more = ${kt} + 1 < nk;
    if (more) {
      let kNext = (${kt} + 1) * ${t.bk};
      ${loadNext('kNext').join('\n      ')}
    }
    let ao = ${cur} * ${t.bk * BM4};
    let bo = ${cur} * ${t.bk * BN4};
    ${range(t.bk)
      .map((k) => `{\n      ${step(k)}\n    }`)
      .join('\n    ')}
    if (more) {
      ${store(nxt).join('\n      ')}
    }
    workgroupBarrier();`;
  const loop = `  for (var kt = 0; kt < nk; kt++) {
    let cur = kt & 1;
    let nxt = 1 - cur;
${kStep('kt', 'cur', 'nxt')}
  }`;
  const pairLoop = `  for (var kt = 0; kt < nk; kt += 2) {
    {
${kStep('kt', '0', '1')}
    }
    if (kt + 1 < nk) {
${kStep('(kt + 1)', '1', '0')}
    }
  }`;
  return `
var<workgroup> gemmAs: array<vec4<f32>, ${2 * t.bk * BM4}>;
var<workgroup> gemmBs: array<vec4<f32>, ${2 * t.bk * BN4}>;

${loaders(vec)}
fn main(index: i32) {
  let t = i32(localIndex);
  let tx = t % ${TX};
  let ty = t / ${TX};
  let z = i32(workgroupId.z);
  let row0 = i32(workgroupId.y) * ${t.bm};
  let col0 = i32(workgroupId.x) * ${t.bn};
  let M = uniforms.M;
  let N = uniforms.N;
  let ldc = uniforms.ldc;
  let aBase = uniforms.aOff + z * uniforms.aBatch;
  let bBase = z * uniforms.bBatch;
  let cBase = z * uniforms.cBatch;
  ${accs.map((a) => `var ${a} = vec4<f32>(0.0);`).join('\n  ')}
  ${[...range(LA).map((l) => `var la${l}: vec4<f32>;`), ...range(LB).map((l) => `var lb${l}: vec4<f32>;`)].join('\n  ')}
  let nk = (uniforms.K + ${t.bk - 1}) / ${t.bk};
  ${loadNext('0').join('\n  ')}
  ${store('0').join('\n  ')}
  workgroupBarrier();
${t.pairs ? pairLoop : loop}
  ${write.join('\n  ')}
}
`;
}
