import type * as tfc from '@tensorflow/tfjs-core';
import { unravel } from './layout';

/** What a probe records about one tensor: enough to read a norm trace, small enough for JSON. */
export interface TensorStats {
  shape: number[];
  dtype: 'float32' | 'float64';
  /** Axis names of `shape` (the tapping path's own layout). */
  layout: string;
  size: number;
  /** L2 norm over the finite values. */
  l2: number;
  rms: number;
  mean: number;
  maxAbs: number;
  /** Multi-index of the largest |x| in `shape`. */
  maxAbsAt: number[];
  nanCount: number;
  infCount: number;
  /**
   * Position-sensitive fingerprint Σ x_i·u_i with u_i = (i mod 65521)/65521 − ½ over the canonical
   * layout (weight stages): equal values in equal places give equal fingerprints, a permuted or
   * mis-split weight does not, and no weight has to leave the device to check it.
   */
  fingerprint?: number;
}

export const FINGERPRINT_MODULUS = 65521;

/** u_i of the fingerprint. */
export const fingerprintWeight = (i: number): number => (i % FINGERPRINT_MODULUS) / FINGERPRINT_MODULUS - 0.5;

/** ‖u‖₂ over n elements: the scale against which two fingerprints are compared. */
export function fingerprintNorm(n: number): number {
  const M = FINGERPRINT_MODULUS;
  const full = Math.floor(n / M);
  const sq = (k: number) => { let s = 0; for (let i = 0; i < k; i++) s += fingerprintWeight(i) ** 2; return s; };
  return Math.sqrt(full * sq(M) + sq(n - full * M));
}

export function hostFingerprint(data: ArrayLike<number>): number {
  let f = 0;
  for (let i = 0; i < data.length; i++) f += (data[i] as number) * fingerprintWeight(i);
  return f;
}

/** Device fingerprint of x (already in canonical layout): per-row partials, float64 total. */
export async function deviceFingerprint(tf: typeof tfc, x: tfc.Tensor): Promise<number> {
  const cols = x.shape[x.rank - 1] ?? 1;
  const rows = x.size / cols;
  const partial = tf.tidy(() => {
    const u = tf.sub(tf.div(tf.cast(tf.mod(tf.range(0, x.size, 1, 'int32'), FINGERPRINT_MODULUS), 'float32'), FINGERPRINT_MODULUS), 0.5);
    return tf.sum(tf.reshape(tf.mul(tf.reshape(x, [-1]), u), [rows, cols]), 1);
  });
  const p = await partial.data();
  partial.dispose();
  let f = 0;
  for (let r = 0; r < rows; r++) f += p[r] as number;
  return f;
}

/** Exact stats of host values, accumulated in float64. */
export function hostStats(data: ArrayLike<number>, shape: number[], dtype: TensorStats['dtype'], layout: string): TensorStats {
  let sumSq = 0;
  let sum = 0;
  let maxAbs = -1;
  let at = 0;
  let nan = 0;
  let inf = 0;
  for (let i = 0; i < data.length; i++) {
    const x = data[i] as number;
    if (x !== x) { nan++; continue; }
    if (x === Infinity || x === -Infinity) { inf++; continue; }
    sumSq += x * x;
    sum += x;
    const a = Math.abs(x);
    if (a > maxAbs) { maxAbs = a; at = i; }
  }
  const finite = data.length - nan - inf;
  return {
    shape, dtype, layout, size: data.length,
    l2: Math.sqrt(sumSq), rms: finite ? Math.sqrt(sumSq / finite) : 0, mean: finite ? sum / finite : 0,
    maxAbs: Math.max(maxAbs, 0), maxAbsAt: unravel(at, shape), nanCount: nan, infCount: inf,
  };
}

/**
 * Stats of a device tensor from per-row reductions only (rows = all but the last axis), finished
 * in float64 on the host: every reduction runs across many workgroups (a whole-tensor argMax on
 * WebGPU runs in one), a 268M-element logits tensor never crosses the bus, and no long float32
 * sum loses precision.
 */
export async function deviceStats(tf: typeof tfc, x: tfc.Tensor, layout: string): Promise<TensorStats> {
  const shape = x.shape.slice();
  const cols = shape.length ? (shape[shape.length - 1] as number) : 1;
  const rows = cols ? x.size / cols : 0;
  if (x.size === 0) return hostStats([], shape, 'float32', layout);
  const [floats, ints] = tf.tidy(() => {
    const x2 = tf.reshape(x, [rows, cols]);
    const finite = tf.isFinite(x2);
    const clean = tf.where(finite, x2, tf.zerosLike(x2));
    const abs = tf.abs(clean);
    const count = (m: tfc.Tensor) => tf.sum(tf.cast(m, 'int32'), 1);
    return [
      tf.stack([tf.sum(tf.square(clean), 1), tf.sum(clean, 1), tf.max(abs, 1)]), // [3, rows]
      tf.stack([tf.argMax(abs, 1), count(tf.isNaN(x2)), count(tf.logicalNot(finite))]), // [3, rows]
    ];
  });
  const [f, n] = await Promise.all([floats.data(), ints.data()]);
  tf.dispose([floats, ints]);
  let sumSq = 0, sum = 0, maxAbs = -1, at = 0, nanCount = 0, nonFinite = 0;
  for (let r = 0; r < rows; r++) {
    sumSq += f[r] as number;
    sum += f[rows + r] as number;
    if ((f[2 * rows + r] as number) > maxAbs) {
      maxAbs = f[2 * rows + r] as number;
      at = r * cols + (n[r] as number);
    }
    nanCount += n[rows + r] as number;
    nonFinite += n[2 * rows + r] as number;
  }
  const infCount = nonFinite - nanCount;
  const finite = x.size - nonFinite;
  return {
    shape, dtype: 'float32', layout, size: x.size,
    l2: Math.sqrt(sumSq), rms: finite ? Math.sqrt(sumSq / finite) : 0, mean: finite ? sum / finite : 0,
    maxAbs: Math.max(maxAbs, 0), maxAbsAt: unravel(at, shape), nanCount, infCount,
  };
}
