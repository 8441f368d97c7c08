/**
 * Float64 kernels of the plain-TypeScript reference. Row-major, no tfjs. Weights are float32
 * values (as stored), every product and sum is float64.
 */
import type { RopeStyle, RopeTables } from '../core/model/rope';
import { ropePair } from '../core/model/rope';
import type { LinearName, Range, WeightSource } from '../core/weights/layer';
import type { Gemm64 } from './reference-gemm';
import { widen } from './reference-gemm';

// Hot loops read Math through module constants: a global lookup per element is ~100× slower
// inside a vm context (jest) and no faster anywhere else.
const { exp, log, sqrt } = Math;

/** Elements of a weight block generated at a time when streaming a projection (16 MiB of float32, 32 MiB widened). */
const STREAM_BLOCK = 1 << 22;

/**
 * y = x·W[rows, cols]ᵀ with W read block by block from the source, never held whole, each block
 * widened to float64 (exact) for the GEMM: x [T, K] float64 → y [T, O] float64.
 */
export function linearStream(
  source: WeightSource,
  name: LinearName,
  rows: Range,
  cols: Range,
  x: Float64Array,
  T: number,
  gemm: Gemm64,
): Float64Array {
  const K = cols[1] - cols[0];
  const O = rows[1] - rows[0];
  const y = new Float64Array(T * O); // [T,O]
  const step = Math.max(1, Math.floor(STREAM_BLOCK / K));
  const scratch = new Float32Array(Math.min(step, O) * K); // [n,K] as stored
  const wide = new Float64Array(scratch.length); // [n,K] widened
  for (let r = 0; r < O; r += step) {
    const n = Math.min(step, O - r);
    source.block(name, [rows[0] + r, rows[0] + r + n], cols, 'out_in', scratch);
    widen(scratch.subarray(0, n * K), wide);
    gemm.dgemm(false, true, T, n, K, 1, x, K, wide, K, 0, y.subarray(r), O);
  }
  return y;
}

/** RMSNorm over rows of width n: x·rsqrt(mean(x²) + eps)·w. */
export function rmsNormRows(x: Float64Array, n: number, w: Float32Array, eps: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < x.length / n; r++) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += x[r * n + i]! ** 2;
    const inv = 1 / sqrt(ss / n + eps);
    for (let i = 0; i < n; i++) y[r * n + i] = x[r * n + i]! * inv * w[i]!;
  }
  return y;
}

// The copies below are plain loops: a subarray view per row (its allocation) costs more than the row's few hundred elements.

/** Columns [c0, c0 + w) of a row-major [rows, n] array. */
export function sliceCols(x: Float64Array, n: number, c0: number, w: number): Float64Array {
  const rows = x.length / n;
  const y = new Float64Array(rows * w);
  for (let r = 0; r < rows; r++) for (let i = 0; i < w; i++) y[r * w + i] = x[r * n + c0 + i]!;
  return y;
}

/** Row-wise concatenation of [rows, a] and [rows, b] → [rows, a + b]. */
export function concatCols(x: Float64Array, a: number, y: Float64Array, b: number): Float64Array {
  const rows = x.length / a;
  const z = new Float64Array(rows * (a + b));
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < a; i++) z[r * (a + b) + i] = x[r * a + i]!;
    for (let i = 0; i < b; i++) z[r * (a + b) + a + i] = y[r * b + i]!;
  }
  return z;
}

/** RoPE on x [T, G, R] (G groups per token, e.g. heads) with float64 tables. */
export function ropeRows(x: Float64Array, T: number, G: number, R: number, tables: RopeTables, style: RopeStyle): Float64Array {
  const y = new Float64Array(x.length);
  const half = R / 2;
  for (let t = 0; t < T; t++) {
    for (let g = 0; g < G; g++) {
      const o = (t * G + g) * R;
      for (let i = 0; i < half; i++) {
        const [ia, ib] = ropePair(style, i, half);
        const c = tables.cos[t * half + i]!;
        const s = tables.sin[t * half + i]!;
        const a = x[o + ia]!;
        const b = x[o + ib]!;
        y[o + ia] = a * c - b * s;
        y[o + ib] = b * c + a * s;
      }
    }
  }
  return y;
}

/**
 * Causal softmax over logits [N, T, S] in place of a copy: returns probs and the natural-log LSE
 * [N, T]. Keys with position > the query's are masked.
 */
export function causalSoftmax(
  logits: Float64Array,
  N: number,
  T: number,
  S: number,
  qPos: readonly number[],
  kPos: readonly number[],
): { probs: Float64Array; lse: Float64Array } {
  const probs = new Float64Array(logits.length);
  const lse = new Float64Array(N * T);
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const o = (h * T + t) * S;
      let m = -Infinity;
      for (let s = 0; s < S; s++) if (kPos[s]! <= qPos[t]! && logits[o + s]! > m) m = logits[o + s]!;
      let z = 0;
      for (let s = 0; s < S; s++) {
        const e = kPos[s]! <= qPos[t]! ? exp(logits[o + s]! - m) : 0;
        probs[o + s] = e;
        z += e;
      }
      for (let s = 0; s < S; s++) probs[o + s] = probs[o + s]! / z;
      lse[h * T + t] = log(z) + m;
    }
  }
  return { probs, lse };
}
