/**
 * Counter-based normal samples: value(key, i) depends only on (key, i), so any block of any
 * weight can be generated in any order, on any thread, and regenerated bit-identically
 * (the float64 reference streams weights this way instead of holding a second copy).
 *
 * u = fmix32(i·φ ⊕ key) is a bijection of i for each key; its top 12 bits index an
 * inverse-normal-CDF table and the low 20 bits interpolate linearly. The table is
 * rescaled so the sampled distribution has unit variance (tails reach ±3.5σ).
 */
// Hot loops read Math through module constants: a global lookup per element is ~100× slower
// inside a vm context (jest) and no faster anywhere else.
const { imul } = Math;

export const NORMAL_BITS = 12;
const N = 1 << NORMAL_BITS;
const LOW_BITS = 32 - NORMAL_BITS;
const LOW_SCALE = 1 / (1 << LOW_BITS);

/** Acklam's rational approximation of the inverse standard normal CDF (rel. error < 1.2e-9). */
export function inverseNormalCdf(p: number): number {
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

function buildTables(): { value: Float32Array; slope: Float32Array } {
  const raw = new Float64Array(N + 1);
  for (let i = 0; i <= N; i++) raw[i] = inverseNormalCdf((i + 0.5) / (N + 1));
  // Variance of the piecewise-linear sampler: each segment is uniform in u, so
  // E[x²] over segment = (a² + ab + b²)/3; average over segments.
  let m2 = 0;
  for (let i = 0; i < N; i++) {
    const x = raw[i]!;
    const y = raw[i + 1]!;
    m2 += (x * x + x * y + y * y) / 3;
  }
  const norm = 1 / Math.sqrt(m2 / N);
  const value = new Float32Array(N);
  const slope = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    value[i] = raw[i]! * norm;
    slope[i] = (raw[i + 1]! - raw[i]!) * norm;
  }
  return { value, slope };
}

const { value: VALUE, slope: SLOPE } = buildTables();

/** Murmur3's 32-bit finalizer. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a of a name, mixed with the seed: the key of one weight tensor. */
export function streamKey(seed: number, name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return fmix32(h ^ fmix32(seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32), 0x9e3779b1));
}

/** One standard-normal-like sample for element i of stream `key`. */
export function normalAt(key: number, i: number): number {
  const u = fmix32(imul(i, 0x9e3779b1) ^ key);
  const j = u >>> LOW_BITS;
  return VALUE[j]! + (u & ((1 << LOW_BITS) - 1)) * LOW_SCALE * SLOPE[j]!;
}

/**
 * dst[o + k·step] = offset + scale·normal(key, i0 + k·stride) for k < n: the hot loop of weight
 * generation, written out so V8 keeps it monomorphic.
 */
export function fillNormal(
  dst: Float32Array,
  o: number,
  step: number,
  n: number,
  key: number,
  i0: number,
  stride: number,
  scale: number,
  offset: number,
): void {
  const mask = (1 << LOW_BITS) - 1;
  let i = i0;
  for (let k = 0; k < n; k++) {
    const u = fmix32(imul(i, 0x9e3779b1) ^ key);
    const j = u >>> LOW_BITS;
    dst[o + k * step] = offset + scale * (VALUE[j]! + (u & mask) * LOW_SCALE * SLOPE[j]!);
    i += stride;
  }
}
