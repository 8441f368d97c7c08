/**
 * The WGSL of the flash-attention program (see flash-attention.ts for the API, layouts and mask).
 *
 * One workgroup per (block of BR query rows, head). Per key tile of BC keys: S = Q·Kᵀ over column
 * chunks of DC (the Q chunk and the K chunk staged in workgroup memory), scaled and masked into P;
 * BR threads update the rows' running max m, sum l and rescale factor α (online softmax, natural
 * exp); then O = α·O + P·V over the same DC-wide chunks of V (for the MLA latent V is read out of
 * K's first E columns). O lives in registers: thread t owns, per V chunk, the outputs
 * i = t + j·WG (j < BR·DC/WG) of the BR×DC chunk. Masked logits are held as the finite sentinel
 * NEG (no ±inf arithmetic in the loop); −inf is written only in the epilogue.
 *
 * The output is one flat f32 array [out A·B·E | lse A·B | max A·B] (a tfjs program has one output).
 */

/** Tile sizes: compile-time constants, all in the shader key. */
export interface FlashTiles {
  /** Query rows per workgroup. */
  rows: number;
  /** Keys per tile. */
  keys: number;
  /** Columns per staged chunk of Q, K and V. */
  chunk: number;
  /** Threads per workgroup. */
  threads: number;
}

/**
 * The fastest of 49 tile sets on the H200 for both forms (bench/kernels/flash-tiles.mjs,
 * bench/gpu/2026-11-29/issue8/tiles.json): 4.6 TFLOP/s; 128 threads gave 3.9 (MHA) and 2.3 (MQA).
 */
export const DEFAULT_TILES: FlashTiles = { rows: 16, keys: 32, chunk: 32, threads: 256 };

/** Bytes of workgroup memory the program declares for `t`. */
export function tileBytes(t: FlashTiles): number {
  return 4 * (t.rows * t.chunk + t.keys * (t.chunk + 1) + t.rows * t.keys + 3 * t.rows + 1);
}

/** Why `t` cannot be used (the thread mapping needs exact divisions), or null. */
export function tilesProblem(t: FlashTiles): string | null {
  const vals = [t.rows, t.keys, t.chunk, t.threads];
  if (!vals.every((v) => Number.isInteger(v) && v > 0)) return 'tile sizes must be positive integers';
  if ((t.rows * t.keys) % t.threads !== 0) return `threads (${t.threads}) must divide rows·keys (${t.rows * t.keys})`;
  if ((t.rows * t.chunk) % t.threads !== 0) return `threads (${t.threads}) must divide rows·chunk (${t.rows * t.chunk})`;
  if (t.rows > t.threads) return `rows (${t.rows}) must not exceed threads (${t.threads})`;
  return null;
}

/** Shader key: everything getFlashShader bakes in (tfjs keys pipelines by this, not by shapes). */
export function flashShaderKey(t: FlashTiles, D: number, E: number, vFromK: boolean): string {
  return `mlaFlashAttn_r${t.rows}_k${t.keys}_c${t.chunk}_w${t.threads}_d${D}_e${E}_${vFromK ? 'vk' : 'v'}`;
}

/** Program uniforms, in the order of the WGSL struct fields below. */
export const FLASH_UNIFORMS = 'A : i32, B : i32, S : i32, offset : i32, rpt : i32, causal : i32, kHeadStride : i32, vHeadStride : i32, scale : f32,';

/** The user code for tfjs's makeShader: inputs Q, K (and V unless vFromK), output `result`. */
export function flashShader(t: FlashTiles, D: number, E: number, vFromK: boolean): string {
  const vLoad = vFromK ? 'K[kBase + s * FA_D + ee]' : 'V[vBase + s * FA_E + ee]';
  return `
const FA_BR = ${t.rows};
const FA_BC = ${t.keys};
const FA_DC = ${t.chunk};
const FA_WG = ${t.threads};
const FA_D = ${D};
const FA_E = ${E};
const FA_NDC = ${Math.ceil(D / t.chunk)};
const FA_NEC = ${Math.ceil(E / t.chunk)};
const FA_SPT = ${(t.rows * t.keys) / t.threads};
const FA_OPT = ${(t.rows * t.chunk) / t.threads};
const FA_KS = ${t.chunk + 1};
const FA_NEG = -3.0e38;
const FA_NEG_LIMIT = -1.0e38;

var<workgroup> faQ: array<f32, ${t.rows * t.chunk}>;
var<workgroup> faKV: array<f32, ${t.keys * (t.chunk + 1)}>;
var<workgroup> faP: array<f32, ${t.rows * t.keys}>;
var<workgroup> faM: array<f32, ${t.rows}>;
var<workgroup> faL: array<f32, ${t.rows}>;
var<workgroup> faAlpha: array<f32, ${t.rows}>;
var<workgroup> faTiles: i32;

fn main(index: i32) {
  let t = i32(localIndex);
  let a = i32(workgroupId.y);
  let b0 = i32(workgroupId.x) * FA_BR;
  let B = uniforms.B;
  let S = uniforms.S;
  if (t == 0) {
    var end = S;
    if (uniforms.causal != 0) {
      let last = min(b0 + FA_BR, B) - 1;
      end = clamp(uniforms.offset + last / uniforms.rpt + 1, 0, S);
    }
    faTiles = (end + FA_BC - 1) / FA_BC;
  }
  if (t < FA_BR) { faM[t] = FA_NEG; faL[t] = 0.0; }
  let nTiles = workgroupUniformLoad(&faTiles);
  let qBase = a * B * FA_D;
  let kBase = a * uniforms.kHeadStride;
  let vBase = a * uniforms.vHeadStride;
  var acc: array<f32, ${Math.ceil(E / t.chunk) * ((t.rows * t.chunk) / t.threads)}>;
  for (var j = 0; j < FA_NEC * FA_OPT; j++) { acc[j] = 0.0; }
  for (var kt = 0; kt < nTiles; kt++) {
    let s0 = kt * FA_BC;
    var sc: array<f32, FA_SPT>;
    for (var j = 0; j < FA_SPT; j++) { sc[j] = 0.0; } // explicit: lavapipe kept the last tile's sums
    for (var dc = 0; dc < FA_NDC; dc++) {
      let d0 = dc * FA_DC;
      workgroupBarrier();
      for (var i = t; i < FA_BR * FA_DC; i += FA_WG) {
        let b = b0 + i / FA_DC;
        let dd = d0 + i % FA_DC;
        var x = 0.0;
        if (b < B && dd < FA_D) { x = Q[qBase + b * FA_D + dd]; }
        faQ[i] = x;
      }
      for (var i = t; i < FA_BC * FA_DC; i += FA_WG) {
        let c = i / FA_DC;
        let s = s0 + c;
        let dd = d0 + i % FA_DC;
        var x = 0.0;
        if (s < S && dd < FA_D) { x = K[kBase + s * FA_D + dd]; }
        faKV[c * FA_KS + i % FA_DC] = x;
      }
      workgroupBarrier();
      for (var j = 0; j < FA_SPT; j++) {
        let i = t + j * FA_WG;
        let qr = (i / FA_BC) * FA_DC;
        let kr = (i % FA_BC) * FA_KS;
        var dot = sc[j];
        for (var d = 0; d < FA_DC; d++) { dot = dot + faQ[qr + d] * faKV[kr + d]; }
        sc[j] = dot;
      }
    }
    for (var j = 0; j < FA_SPT; j++) {
      let i = t + j * FA_WG;
      let b = b0 + i / FA_BC;
      let s = s0 + i % FA_BC;
      var lim = S - 1;
      if (uniforms.causal != 0) { lim = min(lim, uniforms.offset + b / uniforms.rpt); }
      faP[i] = select(FA_NEG, sc[j] * uniforms.scale, b < B && s <= lim);
    }
    workgroupBarrier();
    if (t < FA_BR) {
      let mOld = faM[t];
      var mNew = mOld;
      for (var c = 0; c < FA_BC; c++) { mNew = max(mNew, faP[t * FA_BC + c]); }
      var alpha = 1.0;
      var sum = 0.0;
      let seen = mNew > FA_NEG_LIMIT;
      if (seen) { alpha = exp(mOld - mNew); }
      for (var c = 0; c < FA_BC; c++) {
        let x = faP[t * FA_BC + c];
        var p = 0.0;
        if (seen && x > FA_NEG_LIMIT) { p = exp(x - mNew); }
        faP[t * FA_BC + c] = p;
        sum = sum + p;
      }
      faM[t] = mNew;
      faL[t] = faL[t] * alpha + sum;
      faAlpha[t] = alpha;
    }
    for (var ec = 0; ec < FA_NEC; ec++) {
      let e0 = ec * FA_DC;
      workgroupBarrier();
      for (var i = t; i < FA_BC * FA_DC; i += FA_WG) {
        let c = i / FA_DC;
        let s = s0 + c;
        let ee = e0 + i % FA_DC;
        var x = 0.0;
        if (s < S && ee < FA_E) { x = ${vLoad}; }
        faKV[c * FA_KS + i % FA_DC] = x;
      }
      workgroupBarrier();
      for (var j = 0; j < FA_OPT; j++) {
        let i = t + j * FA_WG;
        let r = i / FA_DC;
        let e = i % FA_DC;
        var o = acc[ec * FA_OPT + j] * faAlpha[r];
        for (var c = 0; c < FA_BC; c++) { o = o + faP[r * FA_BC + c] * faKV[c * FA_KS + e]; }
        acc[ec * FA_OPT + j] = o;
      }
    }
  }
  workgroupBarrier();
  let rows = uniforms.A * B;
  for (var ec = 0; ec < FA_NEC; ec++) {
    for (var j = 0; j < FA_OPT; j++) {
      let i = t + j * FA_WG;
      let r = i / FA_DC;
      let b = b0 + r;
      let ee = ec * FA_DC + i % FA_DC;
      if (b < B && ee < FA_E) {
        let l = faL[r];
        var o = 0.0;
        if (l > 0.0) { o = acc[ec * FA_OPT + j] / l; }
        result[(a * B + b) * FA_E + ee] = o;
      }
    }
  }
  if (t < FA_BR && b0 + t < B) {
    let m = faM[t];
    let seen = m > FA_NEG_LIMIT;
    let row = a * B + b0 + t;
    result[rows * FA_E + row] = select(-uniforms.INFINITY, m + log(faL[t]), seen);
    result[rows * FA_E + rows + row] = select(-uniforms.INFINITY, m, seen);
  }
}
`;
}
