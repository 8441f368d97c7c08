/**
 * Logits written after the causal mask. The stage `logits` is defined before the mask (every key,
 * mla-math.md); a backend that hands back its scores after masked_fill holds −inf, or a very large
 * negative (−1e4, −1e9, −1e30, torch.finfo(dtype).min), at the keys a query does not see. Declared in
 * response.json (`"masked": ["logits"]`) or detected, such a record is compared at the visible keys
 * only: its masked entries become 0 here, and the diff leaves them out on both sides
 * (Captured.masked, src/harness/run/diff.ts).
 */

/** A masked entry is −inf, or at most this and at least MASK_GAP below every visible logit. */
export const MASK_CEILING = -1e3;
export const MASK_GAP = 1e3;

/**
 * Visits the masked positions of canonical 'h t s' [N, T, S] scores of a piece that starts at cache
 * index S − T: query t sees keys 0 … S − T + t; the rest of its row is masked.
 */
function forEachRow(shape: readonly number[], row: (base: number, visible: number, S: number) => void): void {
  const [N, T, S] = shape as [number, number, number];
  for (let h = 0; h < N; h++) for (let t = 0; t < T; t++) row((h * T + t) * S, S - T + t + 1, S);
}

/** Number of masked positions of [N, T, S] scores: N·T(T−1)/2. */
export const maskedCount = (shape: readonly number[]): number => {
  const [N, T] = shape as [number, number];
  return (N * T * (T - 1)) / 2;
};

/**
 * Whether the values carry the causal mask: there are masked positions, every visible entry is
 * finite, and every masked one is −inf or a large negative (≤ MASK_CEILING and MASK_GAP below the
 * smallest visible entry). Pre-mask logits never look so: their future keys are keys like any other.
 */
export function looksMasked(data: ArrayLike<number>, shape: readonly number[]): boolean {
  if (shape.length !== 3 || maskedCount(shape) === 0) return false;
  let minVisible = Infinity;
  let finite = true;
  forEachRow(shape, (base, visible) => {
    for (let i = base; i < base + visible; i++) {
      const x = data[i]!;
      if (!Number.isFinite(x)) finite = false;
      else if (x < minVisible) minVisible = x;
    }
  });
  if (!finite) return false;
  const ceiling = Math.min(MASK_CEILING, minVisible - MASK_GAP);
  let masked = true;
  forEachRow(shape, (base, visible, S) => {
    for (let i = base + visible; i < base + S; i++) {
      const x = data[i]!;
      if (!(x === -Infinity || x <= ceiling)) masked = false;
    }
  });
  return masked;
}

/** A copy with the masked positions set to 0 (what the record's statistics and the diff see). */
export function zeroMasked<A extends Float32Array | Float64Array>(data: A, shape: readonly number[]): A {
  const out = data.slice() as A;
  forEachRow(shape, (base, visible, S) => out.fill(0, base + visible, base + S));
  return out;
}

/** Calls `visit(from, to)` for the visible run of every row of [N, T, S] scores (the diff's loop). */
export function visibleRuns(shape: readonly number[], visit: (from: number, to: number) => void): void {
  forEachRow(shape, (base, visible) => visit(base, base + visible));
}
