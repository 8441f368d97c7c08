/**
 * Float64 attention pieces of the reference, all from one logits array [N,T,S] over every key:
 * any key range (a context chunk, the new tokens, a KV split) is a column range of it.
 */
const { exp, log, max: fmax } = Math;

export interface RangeAttention {
  out: Float64Array; // [T,N,E]
  lse: Float64Array; // [N,T]
  max: Float64Array; // [N,T]
}

/**
 * Softmax over columns [a, b) of logits [N,T,S] where `visible(t, s)`, weighting `values`:
 * [S,N,E] per head, or [S,E] shared by all heads (the MQA latent). Rows that see no key get
 * out 0, lse `empty` (±∞ as the kernel convention says) and max −∞.
 */
export function attendColumns(
  logits: Float64Array,
  N: number,
  T: number,
  S: number,
  a: number,
  b: number,
  visible: ((t: number, s: number) => boolean) | null,
  values: Float64Array,
  E: number,
  shared: boolean,
  empty = -Infinity,
): RangeAttention {
  const out = new Float64Array(T * N * E);
  const lse = new Float64Array(N * T);
  const mx = new Float64Array(N * T);
  const w = new Float64Array(b - a);
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const row = (h * T + t) * S;
      let m = -Infinity;
      for (let s = a; s < b; s++) if (!visible || visible(t, s)) m = fmax(m, logits[row + s]!);
      mx[h * T + t] = m;
      if (m === -Infinity) {
        lse[h * T + t] = b > a ? -Infinity : empty;
        continue;
      }
      let z = 0;
      for (let s = a; s < b; s++) z += w[s - a] = !visible || visible(t, s) ? exp(logits[row + s]! - m) : 0;
      lse[h * T + t] = log(z) + m;
      const o = (t * N + h) * E;
      for (let s = a; s < b; s++) {
        const p = w[s - a]! / z;
        if (p === 0) continue;
        const vo = shared ? s * E : (s * N + h) * E;
        for (let e = 0; e < E; e++) out[o + e] = out[o + e]! + p * values[vo + e]!;
      }
    }
  }
  return { out, lse, max: mx };
}

/** merge_attn_states in float64: +inf LSE of an empty part taken as −inf (weight 0). */
export function mergeStates(p: RangeAttention, s: RangeAttention, N: number, T: number, E: number): RangeAttention {
  const out = new Float64Array(p.out.length);
  const lse = new Float64Array(N * T);
  const mx = new Float64Array(N * T);
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const i = h * T + t;
      const lp = p.lse[i] === Infinity ? -Infinity : p.lse[i]!;
      const ls = s.lse[i] === Infinity ? -Infinity : s.lse[i]!;
      const m = fmax(lp, ls);
      const [pe, se] = [exp(lp - m), exp(ls - m)];
      const z = pe + se;
      lse[i] = log(z) + m;
      mx[i] = fmax(p.max[i]!, s.max[i]!);
      const o = (t * N + h) * E;
      for (let e = 0; e < E; e++) out[o + e] = (p.out[o + e]! * pe + s.out[o + e]! * se) / z;
    }
  }
  return { out, lse, max: mx };
}

/** Rows breaking max ≤ lse ≤ max + ln n for finite lse; n(t) = keys row t saw. */
export function lseViolations(r: RangeAttention, N: number, T: number, keys: (t: number) => number, slack = 1e-9): number {
  let bad = 0;
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const [l, m] = [r.lse[h * T + t]!, r.max[h * T + t]!];
      if (Number.isFinite(l) && (l < m - slack || l > m + log(keys(t)) + slack)) bad++;
    }
  }
  return bad;
}
