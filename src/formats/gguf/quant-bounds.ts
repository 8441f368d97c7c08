import type { GgmlType } from './ggml-types';
import type { GgufEntry } from './types';

/**
 * How far llama.cpp's quantizers may go past our half-step bound (boundRows), per stored type:
 * - Q8_0: no clipping (round(x/d) ≤ 127 for d = amax/127), but x is divided by the unrounded d and
 *   multiplied back by its fp16: |err| ≤ d/2 + 127·d·2⁻¹¹, 1.124× the half step.
 * - Q4_0 / Q5_0: d = max/−8 (−16) maps the signed extreme to −8 (−16) exactly, the other sign's
 *   extreme to +8 (+16), clamped to 7 (15): that element is off by one whole step, 2× the half step,
 *   plus the fp16 rounding of d over 8 (16) levels: 2.02.
 * - Q4_1 / Q5_1: min and max map exactly, no clipping; the fp16 rounding of d and of the min adds
 *   (nmax + |min|/d)·2⁻¹⁰ of the half step (≈ 1.04 for unit-variance blocks): 1.1.
 * - The K-quants (make_qkx2_quants, make_q3_quants, make_qx_quants) and IQ4_NL/IQ4_XS pick each
 *   sub-block's scale by a weighted least-squares search that trades clipping the extremes for a
 *   finer step, then round the scales to 6 (8) bits and re-quantize with clamping: no closed form;
 *   measured on Gaussian weights over seeds 1–12: Q2_K 3.40, Q3_K 2.43, Q4_K 2.16, Q5_K 2.95, Q6_K
 *   1.70, IQ4_NL 1.36, IQ4_XS 1.50. The factors leave room above those; they are measured, not proved.
 */
export const LLAMA_BOUND_FACTOR: Partial<Record<GgmlType, number>> = {
  Q8_0: 1.13,
  Q4_0: 2.02,
  Q5_0: 2.02,
  Q4_1: 1.1,
  Q5_1: 1.1,
  Q2_K: 5,
  Q3_K: 3.5,
  Q4_K: 3,
  Q5_K: 4,
  Q6_K: 2.5,
  IQ4_NL: 2,
  IQ4_XS: 2,
};

/** The metadata key our writer sets: its quantizer never clips, so half a step bounds its files' error. */
export const MLA_DIFF_QUANTIZER_KEY = 'mla-diff.quantizer';

/**
 * The factor a file's per-element bound (half a quant step, boundRows) takes for a stored type: 1 for
 * files our quantizer wrote (the marker, and no general.file_type, which llama_model_quantize always
 * sets), llama.cpp's measured excess otherwise (3 for a quantized type it has none for, 1 for floats).
 */
export function boundFactor(metadata: ReadonlyMap<string, unknown>, t: GgmlType): number {
  if (metadata.has(MLA_DIFF_QUANTIZER_KEY) && !metadata.has('general.file_type')) return 1;
  if (t === 'F32' || t === 'F16' || t === 'BF16') return 1;
  return LLAMA_BOUND_FACTOR[t] ?? 3;
}

export const QUANTIZER_ENTRY: GgufEntry = { type: 'STRING', value: 'mla-diff' };
