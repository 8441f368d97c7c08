// The building blocks of the mutant backend's MLA layer, row-major, float64 arithmetic. Every
// function takes `alloc(n)`, which gives the array a stored intermediate lands in: a Float64Array,
// or a Float32Array when the backend rounds what it stores to float32.

/** x [rows, k] times Wᵀ, W [out, k] as PyTorch stores a linear: [rows, out]. */
export function project(alloc, x, rows, k, W, out) {
  const y = alloc(rows * out);
  for (let r = 0; r < rows; r++) {
    const xr = x.subarray(r * k, r * k + k);
    for (let o = 0; o < out; o++) {
      const wo = W.subarray(o * k, o * k + k);
      let sum = 0;
      for (let i = 0; i < k; i++) sum += xr[i] * wo[i];
      y[r * out + o] = sum;
    }
  }
  return y;
}

/**
 * RMSNorm of the first `width` columns of each row of `stride` columns, weight w [width]: x / rms · w^power.
 * `over` columns enter the mean square (width, or the whole row when a norm runs before the split).
 */
export function rmsRows(alloc, x, rows, stride, width, w, eps, { over = width, power = 1 } = {}) {
  const y = alloc(rows * width);
  for (let r = 0; r < rows; r++) {
    let sq = 0;
    for (let i = 0; i < over; i++) sq += x[r * stride + i] * x[r * stride + i];
    const inv = 1 / Math.sqrt(sq / over + eps);
    for (let i = 0; i < width; i++) y[r * width + i] = x[r * stride + i] * inv * w[i] ** power;
  }
  return y;
}

/** Columns [from, from + width) of each row of `stride` columns (a view's copy). */
export function columns(alloc, x, rows, stride, from, width) {
  const y = alloc(rows * width);
  for (let r = 0; r < rows; r++) y.set(x.subarray(r * stride + from, r * stride + from + width), r * width);
  return y;
}

/** The index pairs RoPE rotates together: GPT-J (2i, 2i+1) or NeoX (i, i + R/2). */
export const ropePairs = (style, R) => Array.from({ length: R / 2 }, (_, i) => (style === 'gptj' ? [2 * i, 2 * i + 1] : [i, i + R / 2]));

/**
 * Rotates `groups` vectors of width R per token in place: x [T, groups, R] by the token's cos/sin rows
 * (cos [T, R/2]; `shift` radians per pair added to each angle, e.g. one position step).
 */
export function rotate(x, T, groups, R, cos, sin, style, shift = null) {
  const pairs = ropePairs(style, R);
  for (let t = 0; t < T; t++)
    pairs.forEach(([a, b], i) => {
      let c = cos[t * (R / 2) + i];
      let s = sin[t * (R / 2) + i];
      if (shift) [c, s] = [c * Math.cos(shift[i]) - s * Math.sin(shift[i]), s * Math.cos(shift[i]) + c * Math.sin(shift[i])];
      for (let g = 0; g < groups; g++) {
        const o = (t * groups + g) * R;
        const [u, v] = [x[o + a], x[o + b]];
        x[o + a] = u * c - v * s;
        x[o + b] = v * c + u * s;
      }
    });
  return x;
}

/** One RoPE position step per pair, theta^(-2i/R) (no YaRN: the mutants' presets have none). */
export const positionStep = (theta, R) => Array.from({ length: R / 2 }, (_, i) => theta ** ((-2 * i) / R));

/** cos/sin [T, R/2] in float64 at `positions` (plain RoPE: no rope_scaling), times mscale. */
export function ropeTables(positions, theta, R, mscale) {
  const step = positionStep(theta, R);
  const cos = new Float64Array((positions.length * R) / 2);
  const sin = new Float64Array(cos.length);
  positions.forEach((p, t) =>
    step.forEach((f, i) => {
      cos[(t * R) / 2 + i] = mscale * Math.cos(p * f);
      sin[(t * R) / 2 + i] = mscale * Math.sin(p * f);
    }),
  );
  return { cos, sin };
}

/**
 * The absorbed weights from kv_b_proj [N(P+V), L]: W_UK_T [N, P, L] (row h(P+V)+p) and W_UV [N, L, V]
 * (row h(P+V)+P+v, transposed); `vHead(h)` the head whose V block head h reads.
 */
export function absorb(alloc, kvb, N, P, V, L, vHead = (h) => h) {
  const W_UK_T = alloc(N * P * L);
  const W_UV = alloc(N * L * V);
  for (let h = 0; h < N; h++) {
    W_UK_T.set(kvb.subarray(h * (P + V) * L, (h * (P + V) + P) * L), h * P * L);
    const vBase = (vHead(h) * (P + V) + P) * L;
    for (let v = 0; v < V; v++) for (let l = 0; l < L; l++) W_UV[(h * L + l) * V + v] = kvb[vBase + v * L + l];
  }
  return { W_UK_T, W_UV };
}

/** Per token and head, x [T, N, A] times M[h] [A, B]: [T, N, B] (bmm over the head axis). */
export function perHead(alloc, x, T, N, A, M, B, scale = 1) {
  const y = alloc(T * N * B);
  for (let t = 0; t < T; t++)
    for (let h = 0; h < N; h++)
      for (let a = 0; a < A; a++) {
        const xa = x[(t * N + h) * A + a] * scale;
        const row = (h * A + a) * B;
        const out = (t * N + h) * B;
        for (let b = 0; b < B; b++) y[out + b] += xa * M[row + b];
      }
  return y;
}

/** Triton's split-KV ranges: cdiv(S, splits) keys each, [j·len, min((j+1)·len, S)). */
export function splitRanges(S, splits) {
  const len = Math.ceil(S / splits);
  return Array.from({ length: splits }, (_, j) => [Math.min(j * len, S), Math.min((j + 1) * len, S)]);
}
