import type { MlaConfig } from './config';
import { yarnGetMscale } from './config';
import type { RopeAngles } from '../../trace/precision';

/** Rotary tables in float64 for the given absolute positions; both paths and the reference use them. */
export interface RopeTables {
  /** [T, R/2] */
  cos: Float64Array;
  /** [T, R/2] */
  sin: Float64Array;
  half: number;
  /** Magnitude factor folded into cos/sin (DeepSeek YaRN `_mscale`; 1 for GLM-5). */
  mscale: number;
}

function yarnCorrectionDim(rotations: number, dim: number, base: number, maxPos: number): number {
  return (dim * Math.log(maxPos / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
}

/** YaRN's correction range [low, high] over the rotary pairs (truncated, widened by 0.001 when empty); [0, 0] without YaRN. */
function yarnRamp(c: MlaConfig): [number, number] {
  const y = c.rope_scaling;
  if (!y) return [0, 0];
  const R = c.qk_rope_head_dim;
  const orig = y.original_max_position_embeddings;
  const low = Math.max(Math.floor(yarnCorrectionDim(y.beta_fast, R, c.rope_theta, orig)), 0);
  const high = Math.min(Math.ceil(yarnCorrectionDim(y.beta_slow, R, c.rope_theta, orig)), R - 1);
  return [low, low === high ? high + 0.001 : high];
}

/**
 * inv_freq_i = theta^(-2i/R); under YaRN the DeepSeek blend of interpolated and extrapolated
 * frequencies (vLLM DeepseekScalingRotaryEmbedding._compute_inv_freq).
 */
export function invFreq(c: MlaConfig): Float64Array {
  const R = c.qk_rope_head_dim;
  const half = R / 2;
  const out = new Float64Array(half);
  const y = c.rope_scaling;
  const [low, high] = yarnRamp(c);
  for (let i = 0; i < half; i++) {
    const posFreq = c.rope_theta ** ((2 * i) / R);
    const extrapolation = 1 / posFreq;
    if (!y) {
      out[i] = extrapolation;
      continue;
    }
    const ramp = Math.min(Math.max((i - low) / (high - low), 0), 1);
    const mask = 1 - ramp; // 1 → keep extrapolation (high-frequency dims)
    out[i] = (extrapolation / y.factor) * (1 - mask) + extrapolation * mask;
  }
  return out;
}

export function ropeMscale(c: MlaConfig): number {
  const y = c.rope_scaling;
  return y ? yarnGetMscale(y.factor, y.mscale) / yarnGetMscale(y.factor, y.mscale_all_dim) : 1;
}

/** RopeAngles (float64 | float32: src/trace/precision.ts): with float32, cos/sin of the fp32 angle are rounded to fp32 too. */
export type { RopeAngles } from '../../trace/precision';

const f32 = Math.fround;

/**
 * inv_freq as the engines compute it in fp32: base ** (2i/R) (torch pow in fp32), 1/x, and under YaRN
 * inv_freq_interpolation·(1 − mask) + inv_freq_extrapolation·mask with each product and sum rounded.
 */
export function invFreqF32(c: MlaConfig): Float64Array {
  const R = c.qk_rope_head_dim;
  const half = R / 2;
  const out = new Float64Array(half);
  const y = c.rope_scaling;
  const [low, high] = yarnRamp(c);
  for (let i = 0; i < half; i++) {
    const posFreq = f32(f32(c.rope_theta) ** f32(f32(2 * i) / R));
    const extrapolation = f32(1 / posFreq);
    if (!y) {
      out[i] = extrapolation;
      continue;
    }
    const interpolation = f32(1 / f32(f32(y.factor) * posFreq));
    const ramp = Math.min(Math.max(f32(f32(i - low) / f32(high - low)), 0), 1);
    const mask = f32(1 - ramp); // 1 → keep extrapolation (high-frequency dims)
    out[i] = f32(f32(interpolation * f32(1 - mask)) + f32(extrapolation * mask));
  }
  return out;
}

export function ropeTables(c: MlaConfig, positions: readonly number[], angles: RopeAngles = 'float64'): RopeTables {
  const fp32 = angles === 'float32';
  const inv = fp32 ? invFreqF32(c) : invFreq(c);
  const half = inv.length;
  const mscale = fp32 ? f32(ropeMscale(c)) : ropeMscale(c);
  const T = positions.length;
  const cos = new Float64Array(T * half);
  const sin = new Float64Array(T * half);
  for (let t = 0; t < T; t++) {
    const p = positions[t] as number;
    for (let i = 0; i < half; i++) {
      if (fp32) {
        const angle = f32(p * (inv[i] as number));
        cos[t * half + i] = f32(f32(Math.cos(angle)) * mscale);
        sin[t * half + i] = f32(f32(Math.sin(angle)) * mscale);
        continue;
      }
      const angle = p * (inv[i] as number);
      cos[t * half + i] = Math.cos(angle) * mscale;
      sin[t * half + i] = Math.sin(angle) * mscale;
    }
  }
  return { cos, sin, half, mscale };
}

/**
 * RMS relative error of the rotation factors (cos, sin) an engine computing its angles in fp32 has at
 * these positions against the exact ones: what a rotated row (q_pe, k_pe) of a correct fp32 engine
 * carries on top of its own rounding (the third party's RoPE term of the noise floor).
 */
export function ropeAngleRms(c: MlaConfig, positions: readonly number[]): number {
  if (!positions.length) return 0;
  const a = ropeTables(c, positions, 'float64');
  const b = ropeTables(c, positions, 'float32');
  let num = 0;
  let den = 0;
  for (let i = 0; i < a.cos.length; i++) {
    num += (b.cos[i]! - a.cos[i]!) ** 2 + (b.sin[i]! - a.sin[i]!) ** 2;
    den += a.cos[i]! ** 2 + a.sin[i]! ** 2;
  }
  return Math.sqrt(num / den);
}

/** How the R rope features are paired for rotation. */
export type RopeStyle = 'gptj' | 'neox';

/** Index pair (a, b) of rotation i: GPT-J (2i, 2i+1); NeoX (i, i + R/2). */
export function ropePair(style: RopeStyle, i: number, half: number): [number, number] {
  return style === 'gptj' ? [2 * i, 2 * i + 1] : [i, i + half];
}
