/**
 * The K-quant codecs (256-element super-blocks) and IQ4_XS, for the registry in codecs.ts.
 * Dequantizers follow ggml-quants.c dequantize_row_* exactly; quantizers are our own (never clip,
 * see kquant-fit.ts); bounds are read back from the stored block bytes.
 */
import type { Codec, GgmlType } from './ggml-types';
import { Q2_K_CODEC, Q3_K_CODEC } from './codecs-q2k-q3k';
import { Q4_K_CODEC, Q5_K_CODEC } from './codecs-q4k-q5k';
import { IQ4_XS_CODEC, Q6_K_CODEC } from './codecs-q6k-iq4xs';

export const K_CODECS: Partial<Record<GgmlType, Codec>> = {
  Q2_K: Q2_K_CODEC,
  Q3_K: Q3_K_CODEC,
  Q4_K: Q4_K_CODEC,
  Q5_K: Q5_K_CODEC,
  Q6_K: Q6_K_CODEC,
  IQ4_XS: IQ4_XS_CODEC,
};
