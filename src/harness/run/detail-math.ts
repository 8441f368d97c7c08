/** The per-record measurements of detail.ts: pure functions of host values. */

// Hot loops read Math through module constants (see diff.ts).
const { sqrt, log, floor } = Math;

/**
 * ‖a_i − b_i‖ / max(‖a_i‖, ‖b_i‖) per index i of one axis of two same-shape arrays; Infinity where an
 * infinity or NaN of one side is not matched by the other.
 */
export function axisRelErr(a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[], axis: number): number[] {
  const n = shape[axis]!;
  const inner = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
  const [dd, aa, bb] = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  const bad = new Uint8Array(n);
  for (let i = 0; i < a.length; i++) {
    const k = floor(i / inner) % n;
    const x = a[i] as number;
    const y = b[i] as number;
    if (x - x !== 0 || y - y !== 0) {
      if (x !== y) bad[k] = 1;
      continue;
    } // NaN or an infinity: agrees only with itself
    const d = x - y;
    dd[k] = dd[k]! + d * d;
    aa[k] = aa[k]! + x * x;
    bb[k] = bb[k]! + y * y;
  }
  return Array.from(dd, (v, k) => (bad[k] ? Infinity : aa[k]! || bb[k]! ? sqrt(v) / sqrt(aa[k]! > bb[k]! ? aa[k]! : bb[k]!) : 0));
}

/**
 * Mean over query rows that see more than one key of H(row) / ln(keys seen), for probabilities
 * [N,T,S] under a bottom-right causal mask (query t sees S − T + t + 1 keys). 1 is a uniform softmax.
 * `sampled`: the T rows are these query tokens of a piece of `tokens` (schedule.logits_rows).
 */
export function meanNormalizedEntropy(
  p: ArrayLike<number>,
  shape: readonly number[],
  sampled?: { rows: readonly number[]; tokens: number },
): number | null {
  const [N, T, S] = shape as [number, number, number];
  let sum = 0;
  let rows = 0;
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const keys = sampled ? S - sampled.tokens + sampled.rows[t]! + 1 : S - T + t + 1;
      if (keys < 2) continue;
      let H = 0;
      for (let s = 0; s < S; s++) {
        const x = p[(h * T + t) * S + s] as number;
        if (x > 0) H -= x * log(x);
      }
      if (H === H) {
        sum += H / log(keys);
        rows++;
      }
    }
  }
  return rows ? sum / rows : null;
}

/**
 * The relative L2 error of `a` (shape [R,C]) read in the other axis order, against `b`: its buffer taken as [C,R] data and
 * transposed back, and the inverse reading; the smaller. Null when an axis is 1 (both readings are the plain one).
 */
export function swappedRelErr(a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[]): number | null {
  const [R, C] = shape as [number, number];
  if (shape.length !== 2 || R < 2 || C < 2) return null;
  const err = (at: (r: number, c: number) => number) => {
    let [dd, aa, bb] = [0, 0, 0];
    for (let r = 0; r < R; r++)
      for (let c = 0; c < C; c++) {
        const x = a[at(r, c)] as number;
        const y = b[r * C + c] as number;
        if (x - x !== 0 || y - y !== 0) {
          if (x !== y) return Infinity;
          continue;
        }
        dd += (x - y) * (x - y);
        aa += x * x;
        bb += y * y;
      }
    return aa || bb ? sqrt(dd) / sqrt(aa > bb ? aa : bb) : 0;
  };
  // element (r, c) of the correct [R,C] sits at c·R + r when [C,R] data was handed over; the inverse reading, its inverse
  const inverse = (r: number, c: number) => {
    const k = r * C + c;
    return (k % R) * C + floor(k / R);
  };
  return Math.min(
    err((r, c) => c * R + r),
    err(inverse),
  );
}

/**
 * The relative L2 error against `b` ([R, C]) left once each row of `a` is scaled by its least-squares factor onto `b`'s
 * (α_r = ⟨a_r, b_r⟩ / ⟨a_r, a_r⟩): 0 when the rows differ by a factor each. Null with a non-finite value.
 */
export function rowScaledRelErr(a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[]): number | null {
  const C = shape[shape.length - 1]!;
  const R = a.length / C;
  let [res, bb] = [0, 0];
  for (let r = 0; r < R; r++) {
    let [ab, aa, rb] = [0, 0, 0];
    for (let c = r * C; c < (r + 1) * C; c++) {
      const x = a[c] as number;
      const y = b[c] as number;
      if (x - x !== 0 || y - y !== 0) return null;
      ab += x * y;
      aa += x * x;
      rb += y * y;
    }
    const alpha = aa ? ab / aa : 0;
    res += rb - alpha * ab; // ‖α·a − b‖² = ‖b‖² − α⟨a, b⟩ at the optimum
    bb += rb;
  }
  return bb ? sqrt(Math.max(res, 0)) / sqrt(bb) : 0;
}
