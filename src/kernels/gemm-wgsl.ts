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
 * Global loads are vec4 where the row length allows (A when K % 4 = 0, B and C when N % 4 = 0),
 * else scalar loads and stores guarded per element; rows, columns and k past the edges read 0
 * and are not written, so any M, N, K ≥ 1 is correct.
 */

/** Tile sizes: compile-time constants, all in the shader key. */
export interface GemmTiles {
  /** Rows of C per workgroup. */
  bm: number;
  /** Columns of C per workgroup. */
  bn: number;
  /** k per step (staged tile depth). */
  bk: number;
  /** Rows per thread (multiple of 4). */
  tm: number;
  /** Columns per thread (multiple of 4). */
  tn: number;
  /** Two k-steps per loop iteration, each with its tile buffers at constant offsets. */
  pairs?: boolean;
}

/**
 * 64×128 tiles, BK 8, 8×8 per thread, 128 threads, 12 KiB: in the H200 sweep over 12 tile sets
 * (bench/kernels/gemm-bench.mjs --sweep, bench/gpu/2026-11-29/issue8-tune/gemm-bench.json) the one
 * within a few % of the best on every projection at T = 512…8192 (o_proj at T = 512: 4.3 ms, where
 * 128×128×8 took 14.3 ms). K-steps in pairs (buffers at constant offsets): 3–14 % faster on the
 * projections (gemm-bench --pairs, bench/gpu/2026-11-29/issue8-s3/8-gemm-pairs: o_proj at T = 8192
 * 53.5 against 55.1 ms, at T = 512 4.0 against 4.6).
 */
export const DEFAULT_GEMM_TILES: GemmTiles = { bm: 64, bn: 128, bk: 8, tm: 8, tn: 8, pairs: true };

/**
 * 64×64, BK 16, 4×4 per thread (256 threads, 16 KiB): more workgroups for small products (kv_a_proj's
 * 576 columns, few tokens); k-steps in pairs. Faster than FALLBACK on every product where the
 * default gives too few workgroups (kv_a_proj at T = 512: 0.77 against 1.02 ms; q_a_proj 0.86 against 1.23).
 */
export const MID_GEMM_TILES: GemmTiles = { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4, pairs: true };

/** Where neither fits the device (16 KiB of workgroup memory is WebGPU's default): 64×64, BK 8, 4×8 per thread, 128 threads, 8 KiB. */
export const FALLBACK_GEMM_TILES: GemmTiles = { bm: 64, bn: 64, bk: 8, tm: 4, tn: 8, pairs: true };

/** Threads per workgroup for `t`. */
export const gemmThreads = (t: GemmTiles): number => (t.bm / t.tm) * (t.bn / t.tn);

/** Bytes of workgroup memory (two buffers of the A and B tiles). */
export const gemmTileBytes = (t: GemmTiles): number => 2 * 4 * t.bk * (t.bm + t.bn);

/** Why `t` cannot be used (the thread mapping needs exact divisions), or null. */
export function gemmTilesProblem(t: GemmTiles): string | null {
  const vals = [t.bm, t.bn, t.bk, t.tm, t.tn];
  if (!vals.every((v) => Number.isInteger(v) && v > 0)) return `tile sizes must be positive integers, got ${JSON.stringify(t)}`;
  if (t.tm % 4 || t.tn % 4 || t.bk % 4) return `tm (${t.tm}), tn (${t.tn}) and bk (${t.bk}) must be multiples of 4`;
  if (t.bm % t.tm || t.bn % t.tn) return `tm (${t.tm}) must divide bm (${t.bm}) and tn (${t.tn}) divide bn (${t.bn})`;
  const threads = gemmThreads(t);
  if ((t.bm * t.bk / 4) % threads || (t.bk * t.bn / 4) % threads) {
    return `threads (${threads}) must divide the vec4 loads of the A tile (${t.bm * t.bk / 4}) and of the B tile (${t.bk * t.bn / 4})`;
  }
  return null;
}

/** Whether A (K % 4 = 0) and B, C (N % 4 = 0) are read and written as vec4. */
export interface GemmVec {
  a: boolean;
  b: boolean;
}

/** Shader key: everything gemmShader bakes in (tfjs keys pipelines by this, not by shapes). */
export function gemmShaderKey(t: GemmTiles, vec: GemmVec): string {
  return `mlaGemm_m${t.bm}_n${t.bn}_k${t.bk}_tm${t.tm}_tn${t.tn}${t.pairs ? '_p2' : ''}_a${vec.a ? 4 : 1}_b${vec.b ? 4 : 1}`;
}

/** Program uniforms, in the order of the WGSL struct fields. */
export const GEMM_UNIFORMS = 'M : i32, N : i32, K : i32, lda : i32, aBatch : i32, aOff : i32, ldb : i32, bBatch : i32, ldc : i32, cBatch : i32,';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const C4 = ['x', 'y', 'z', 'w'] as const;

/** Loads of A (row, k..k+3) and B (k, n..n+3) as vec4, zero past the edges. */
function loaders(vec: GemmVec): string {
  const scalar = (name: string, idx: string, ok: (c: number) => string) =>
    `var v = vec4<f32>(0.0);\n${range(4).map((c) => `  if (${ok(c)}) { v.${C4[c]} = ${name}[${idx} + ${c}]; }`).join('\n')}\n  return v;`;
  const a = vec.a
    ? 'if (row < uniforms.M && k < uniforms.K) { return A[(base + row * uniforms.lda + k) / 4]; }\n  return vec4<f32>(0.0);'
    : scalar('A', 'base + row * uniforms.lda + k', (c) => `row < uniforms.M && k + ${c} < uniforms.K`);
  const b = vec.b
    ? 'if (k < uniforms.K && n < uniforms.N) { return B[(base + k * uniforms.ldb + n) / 4]; }\n  return vec4<f32>(0.0);'
    : scalar('B', 'base + k * uniforms.ldb + n', (c) => `k < uniforms.K && n + ${c} < uniforms.N`);
  return `fn gemmLoadA(base: i32, row: i32, k: i32) -> vec4<f32> {\n  ${a}\n}\nfn gemmLoadB(base: i32, k: i32, n: i32) -> vec4<f32> {\n  ${b}\n}\n`;
}

/** The user code for tfjs's makeShader: inputs A, B, output `result` (vec4 when vec.b). */
export function gemmShader(t: GemmTiles, vec: GemmVec): string {
  const TX = t.bn / t.tn, TY = t.bm / t.tm, threads = TX * TY;
  const BM4 = t.bm / 4, BN4 = t.bn / 4, BK4 = t.bk / 4, MI = t.tm / 4, NJ = t.tn / 4;
  const LA = (t.bm * BK4) / threads, LB = (t.bk * BN4) / threads;
  const accs = range(MI).flatMap((i) => range(4).flatMap((r) => range(NJ).map((j) => `acc_${i}_${r}_${j}`)));
  const loadNext = (k0: string) => [
    ...range(LA).map((l) => `la${l} = gemmLoadA(aBase, row0 + (t + ${l * threads}) / ${BK4}, ${k0} + ((t + ${l * threads}) % ${BK4}) * 4);`),
    ...range(LB).map((l) => `lb${l} = gemmLoadB(bBase, ${k0} + (t + ${l * threads}) / ${BN4}, col0 + ((t + ${l * threads}) % ${BN4}) * 4);`),
  ];
  const store = (buf: string) => [
    ...range(LA).flatMap((l) => {
      const m = `(t + ${l * threads}) / ${BK4}`, k = `((t + ${l * threads}) % ${BK4}) * 4`;
      return range(4).map((c) => `gemmAs[${buf} * ${t.bk * BM4} + (${k} + ${c}) * ${BM4} + (${m}) / 4][(${m}) % 4] = la${l}.${C4[c]};`);
    }),
    ...range(LB).map((l) => `gemmBs[${buf} * ${t.bk * BN4} + t + ${l * threads}] = lb${l};`),
  ];
  const step = (k: number) => [
    ...range(MI).map((i) => `let a${i} = gemmAs[ao + ${k * BM4 + i * TY} + ty];`),
    ...range(NJ).map((j) => `let b${j} = gemmBs[bo + ${k * BN4 + j * TX} + tx];`),
    ...range(MI).flatMap((i) => range(4).flatMap((r) => range(NJ).map((j) => `acc_${i}_${r}_${j} = fma(vec4<f32>(a${i}.${C4[r]}), b${j}, acc_${i}_${r}_${j});`))),
  ].join('\n      ');
  const write = range(MI).flatMap((i) => range(4).flatMap((r) => range(NJ).map((j) => {
    const acc = `acc_${i}_${r}_${j}`;
    const row = `row0 + (${i * TY} + ty) * 4 + ${r}`, col = `col0 + (${j * TX} + tx) * 4`;
    const body = vec.b
      ? `if (col < N) { result[(cBase + row * ldc + col) / 4] = ${acc}; }`
      : range(4).map((c) => `if (col + ${c} < N) { result[cBase + row * ldc + col + ${c}] = ${acc}.${C4[c]}; }`).join(' ');
    return `{ let row = ${row}; let col = ${col}; if (row < M) { ${body} } }`;
  })));
  // One k-step: the next tile's loads issued, the products from buffer `cur`, the next tile stored into the other.
  const kStep = (kt: string, cur: string, nxt: string) => `    let more = ${kt} + 1 < nk;
    if (more) {
      let kNext = (${kt} + 1) * ${t.bk};
      ${loadNext('kNext').join('\n      ')}
    }
    let ao = ${cur} * ${t.bk * BM4};
    let bo = ${cur} * ${t.bk * BN4};
    ${range(t.bk).map((k) => `{\n      ${step(k)}\n    }`).join('\n    ')}
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
