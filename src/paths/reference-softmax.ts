/** The attention's softmax over the rows of a block of logits, for the reference (reference-attention.ts) and the pool's workers. */

/**
 * The softmax of rows i < n of a block x [n, w] (row stride ldx) over the keys row i sees, [0, end_i)
 * with end_i = clamp(base + i, 0, w): P [n, w] (row stride w, zeros past end_i), lse[i] = log Σ exp +
 * max, max[i]. A row that sees no key gets P 0, max −∞ and lse `empty`.
 */
export type RowSoftmax = (
  n: number,
  w: number,
  x: Float64Array,
  ldx: number,
  base: number,
  P: Float64Array,
  lse: Float64Array,
  max: Float64Array,
  empty: number,
) => void;

/** RowSoftmax on the calling thread: one exp per visible key. Self-contained: the pool's workers run its source. */
export function softmaxRows(
  n: number,
  w: number,
  x: Float64Array,
  ldx: number,
  base: number,
  P: Float64Array,
  lse: Float64Array,
  max: Float64Array,
  empty: number,
): void {
  const { exp, log } = Math;
  for (let i = 0; i < n; i++) {
    const [xi, pi] = [i * ldx, i * w];
    const e = Math.min(w, Math.max(0, base + i)); // keys [0, e) visible
    let m = -Infinity;
    for (let s = 0; s < e; s++) m = Math.max(m, x[xi + s]!);
    max[i] = m;
    P.fill(0, pi + (m === -Infinity ? 0 : e), pi + w);
    if (m === -Infinity) {
      lse[i] = empty;
      continue;
    }
    let z = 0;
    for (let s = 0; s < e; s++) z += P[pi + s] = exp(x[xi + s]! - m);
    lse[i] = log(z) + m;
    for (let s = 0; s < e; s++) P[pi + s] = P[pi + s]! / z;
  }
}
