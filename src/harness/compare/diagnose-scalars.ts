/**
 * Diagnosis signatures read off recorded scalars and config constants: softmax scale, RoPE convention or magnitude (the LSE
 * base: diagnose-lse.ts). A third party's scalars are read where it reported them; without them these stay silent and the norm
 * ratio (diagnose-detail.ts) and the per-token detail carry the evidence.
 */
import type { FaultName } from '../../core/faults/catalogue';
import { K_SCALE } from '../../core/faults/catalogue';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../../core/model/config';
import { ropeMscale } from '../../core/model/rope';
import { culpritName, fmt, near } from './diagnose-facts';
import type { Signature } from './diagnose-detail';

/** The softmax scale a path recorded, against the config's, matched to the constants of known bugs. */
export const softmaxScaleSig: Signature = (f, c, t) => {
  if (!f.culprit) return null;
  const got = f.scalar(f.culprit, 'softmax_scale');
  const want = softmaxScale(c);
  if (typeof got !== 'number' || near(got, want, 1e-9)) return null;
  const y = c.rope_scaling;
  const known: [number, string, FaultName][] = [
    [
      latentWidth(c) ** -0.5,
      `(L+R)^-0.5 = ${latentWidth(c)}^-0.5: the scale taken from the latent query width instead of qk_head_dim ${qkHeadDim(c)}`,
      'softmax-scale-latent',
    ],
    [want * K_SCALE, `× ${K_SCALE}: a checkpoint k_scale multiplied in (the cache is not fp8)`, 'k-scale-bf16-cache'],
    ...(y
      ? ([
          [
            qkHeadDim(c) ** -0.5,
            `qk_head_dim^-0.5 without YaRN's mscale² (${fmt(yarnGetMscale(y.factor, y.mscale_all_dim) ** 2)})`,
            'yarn-mscale-missing',
          ],
          [
            qkHeadDim(c) ** -0.5 * yarnGetMscale(y.factor, y.mscale_all_dim / 10) ** 2,
            'mscale with a 10× smaller log term: yarn_log_multiplier (0.1·mscale_all_dim) read as mscale_all_dim',
            'yarn-log-mul-misread',
          ],
        ] as [number, string, FaultName][])
      : []),
  ];
  const hit = known.find(([v]) => near(got, v, 1e-6));
  const evidence = `softmax_scale ${culpritName(f, t)} ${fmt(got)}, config ${fmt(want)} (×${fmt(got / want)})`;
  return hit
    ? { cause: 'softmax-scale', summary: `softmax scale ${hit[1]}`, evidence, matches: hit[2] }
    : { cause: 'softmax-scale', summary: "the softmax scale differs from the config's", evidence };
};

export const ropeSig: Signature = (f, c, t) => {
  if (!f.culprit || (f.first.stage !== 'q_pe' && f.first.stage !== 'k_pe')) return null;
  const style = f.scalar(f.culprit, 'rope_style');
  const want = c.rope_interleave ? 'gptj' : 'neox';
  if (style !== undefined && style !== want) {
    return {
      cause: 'rope-convention',
      summary: `RoPE pairs rotated ${style === 'neox' ? 'as NeoX split halves' : 'as GPT-J interleaved pairs'}, the config says ${want}`,
      evidence:
        `rope_style ${style} in ${culpritName(f, t)}; norms equal (ratio ${fmt(f.first.normRatio ?? NaN)}): ` +
        'the pairs are permuted, not scaled',
      matches: 'rope-neox',
    };
  }
  const a = f.stats(f.culprit, f.first.stage)?.l2;
  const b = f.witness ? f.stats(f.witness, f.first.stage)?.l2 : undefined;
  if (a === undefined || b === undefined || near(a, b, 1e-5)) return null;
  const y = c.rope_scaling;
  const inflated = y ? yarnGetMscale(y.factor, y.mscale_all_dim) / ropeMscale(c) : NaN;
  return near(a / b, inflated, 1e-4)
    ? {
        cause: 'rope-magnitude',
        summary: 'RoPE cos/sin scaled by get_mscale(factor, mscale_all_dim) instead of the mscale ratio',
        evidence: `‖${f.first.stage}‖ ×${fmt(a / b)} against ${f.witness} = ${fmt(inflated)}`,
        matches: 'rope-mscale-inflated',
      }
    : {
        cause: 'rope-magnitude',
        summary: 'RoPE cos/sin carry a different magnitude (mscale)',
        evidence: `‖${f.first.stage}‖ ×${fmt(a / b)} against ${f.witness}`,
      };
};

/**
 * A RoPE output whose norm is right (a rotation keeps it) and whose pre-RoPE values agree, yet its values differ: the
 * rotation itself (its positions, frequencies or pairing), read without a rope_style scalar or position 0.
 */
export const ropeRotationSig: Signature = (f, _c, t) => {
  const raw = f.first.stage === 'q_pe' ? 'q_pe_raw' : f.first.stage === 'k_pe' ? 'k_pe_raw' : null;
  if (!f.culprit || !f.witness || !raw) return null;
  const a = f.stats(f.culprit, f.first.stage)?.l2;
  const b = f.stats(f.witness, f.first.stage)?.l2;
  const e = f.first.relErr;
  if (a === undefined || b === undefined || !near(a, b, 1e-5) || e === null || !(e > f.tolerance)) return null;
  const own = f.stats(f.culprit, raw) !== undefined;
  if (own && !f.agrees(raw)) return null;
  return {
    cause: 'rope-parameters',
    summary: `${f.first.stage} rotated otherwise: the RoPE positions (an offset), frequencies or pairing differ`,
    evidence:
      `‖${f.first.stage}‖ ${culpritName(f, t)} = ${f.witness}'s (${fmt(a)}): a rotation, rel err ${fmt(e)}` +
      (own ? `; ${raw} agrees` : `; ${raw} not recorded by it`),
  };
};
