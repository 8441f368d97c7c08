import type { MlaConfig } from './config';
import { yarnGetMscale } from './config';

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

/**
 * inv_freq_i = theta^(-2i/R); under YaRN the DeepSeek blend of interpolated and extrapolated
 * frequencies (vLLM DeepseekScalingRotaryEmbedding._compute_inv_freq).
 */
export function invFreq(c: MlaConfig): Float64Array {
  const R = c.qk_rope_head_dim;
  const half = R / 2;
  const out = new Float64Array(half);
  const y = c.rope_scaling;
  let low = 0;
  let high = 0;
  if (y) {
    const orig = y.original_max_position_embeddings;
    low = Math.max(Math.floor(yarnCorrectionDim(y.beta_fast, R, c.rope_theta, orig)), 0);
    high = Math.min(Math.ceil(yarnCorrectionDim(y.beta_slow, R, c.rope_theta, orig)), R - 1);
    if (low === high) high += 0.001;
  }
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

export function ropeTables(c: MlaConfig, positions: readonly number[]): RopeTables {
  const inv = invFreq(c);
  const half = inv.length;
  const mscale = ropeMscale(c);
  const T = positions.length;
  const cos = new Float64Array(T * half);
  const sin = new Float64Array(T * half);
  for (let t = 0; t < T; t++) {
    const p = positions[t] as number;
    for (let i = 0; i < half; i++) {
      const angle = p * (inv[i] as number);
      cos[t * half + i] = Math.cos(angle) * mscale;
      sin[t * half + i] = Math.sin(angle) * mscale;
    }
  }
  return { cos, sin, half, mscale };
}

/** How the R rope features are paired for rotation. */
export type RopeStyle = 'gptj' | 'neox';

/** Index pair (a, b) of rotation i: GPT-J (2i, 2i+1); NeoX (i, i + R/2). */
export function ropePair(style: RopeStyle, i: number, half: number): [number, number] {
  return style === 'gptj' ? [2 * i, 2 * i + 1] : [i, i + half];
}
