import type { FaultName } from '../../core/faults/catalogue';
import { K_SCALE } from '../../core/faults/catalogue';
import type { MlaConfig } from '../../core/model/config';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../../core/model/config';
import type { StageName } from '../../trace/stages';
import type { CaseTrace, Diagnosis } from '../../trace';
import type { Facts } from './diagnose-facts';
import { culpritName, fmt, near } from './diagnose-facts';

/** Extremes of a per-token list without spreading it into arguments (a 128k-token piece passes the stack). */
const least = (xs: readonly number[]) => xs.reduce((a, b) => Math.min(a, b), Infinity);
const most = (xs: readonly number[]) => xs.reduce((a, b) => Math.max(a, b), -Infinity);
/**
 * Signatures that read where inside the first divergent record the error lives (per token, per
 * head, attention entropy: CaseResult.detail) or how its norm relates to the witness's: agreement
 * only at RoPE position 0, a subset of heads, a flat softmax, a norm ratio equal to a known constant.
 */
export type Signature = (f: Facts, c: MlaConfig, t: CaseTrace) => Diagnosis | null;

/** Stages RoPE feeds, before attention mixes positions. */
const ROPE_STAGES: readonly StageName[] = ['q_pe', 'k_pe', 'q', 'k', 'mqa_q'];
/** A path's attention counts as flat at this mean entropy / ln(keys), and the witness's must sit this far below. */
export const FLAT_ENTROPY = 0.97;
const FLAT_MARGIN = 0.05;
/** Past this mean entropy / ln(keys allowed) the rows saw more keys than allowed (rounding stays far below). */
const PAST_MASK = 1 + 1e-4;
const OUTPUT_STAGES: readonly StageName[] = [
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
  'suffix_output',
  'chunk_output',
  'context_output',
];

/** Query records a kernel may hand over pre-scaled. */
const QUERY_STAGES: readonly StageName[] = ['q', 'mqa_q', 'q_nope', 'q_pe', 'ql_nope'];
const list = (xs: number[]) => (xs.length > 6 ? `${xs.slice(0, 6).join(', ')}, …` : xs.join(', '));

/** Every token at RoPE position 0 agrees, every other diverges: the rotation (identity at 0) is wrong. */
export const positionZeroSig: Signature = (f) => {
  const d = f.detail;
  if (!d?.perToken || !ROPE_STAGES.includes(f.first.stage)) return null;
  const tol = f.tolerance;
  const zero = d.positions.flatMap((p, t) => (p === 0 ? [t] : []));
  const rest = d.perToken.filter((_, t) => d.positions[t] !== 0);
  if (!zero.length || !rest.length || !zero.every((t) => d.perToken![t]! <= tol) || !rest.every((e) => e > tol)) return null;
  return {
    cause: 'rope-convention',
    summary: 'agreement only at RoPE position 0, where every rotation is the identity: the RoPE pairing (NeoX vs GPT-J) or its frequencies',
    evidence:
      `${f.first.stage} ${d.a} vs ${d.b}: relErr ${fmt(d.perToken[zero[0]!]!)} at position 0, ` +
      `${fmt(least(rest))}–${fmt(most(rest))} at positions ${list(d.positions.filter((p) => p !== 0))}`,
  };
};

/** Some heads agree, the others do not: head slicing, a tensor-parallel offset, a per-head kernel bug. */
export const headSubsetSig: Signature = (f) => {
  const e = f.detail?.perHead;
  if (!e || e.length < 2) return null;
  const tol = f.tolerance;
  const agree = e.flatMap((x, h) => (x <= tol ? [h] : []));
  const differ = e.flatMap((x, h) => (x > tol ? [h] : []));
  if (!agree.length || !differ.length) return null;
  const evidence =
    `${f.first.stage} ${f.detail!.a} vs ${f.detail!.b}: ` +
    `heads ${list(agree)} agree (relErr ≤ ${fmt(Math.max(...agree.map((h) => e[h]!)))}), ` +
    `heads ${list(differ)} do not (${fmt(Math.min(...differ.map((h) => e[h]!)))}–${fmt(Math.max(...differ.map((h) => e[h]!)))})`;
  const expands = f.culprit === 'mha' || f.culprit === 'external'; // builds k by broadcasting k_pe over heads
  if (f.first.stage === 'k' && expands && agree.length === 1 && agree[0] === 0 && f.agrees('k_pe')) {
    return {
      cause: 'head-subset',
      summary:
        'k_pe differs per head although it is one head shared by all: ' +
        'rotated after the broadcast, head h at position + h (head 0 alone right)',
      evidence: `${evidence}; k_pe itself agrees`,
      matches: 'k-pe-per-head',
    };
  }
  return {
    cause: 'head-subset',
    summary: 'only some heads diverge: head slicing, a tensor-parallel head offset, or a kernel that treats heads unequally',
    evidence,
  };
};

/** The culprit's attention is near uniform (entropy ≈ ln n) where the witness's is not. */
export const flatSoftmaxSig: Signature = (f, _c, t) => {
  if (!f.culprit || !f.witness) return null;
  const [a, b] = [f.entropy(f.culprit), f.entropy(f.witness)];
  if (a === undefined || b === undefined || a < FLAT_ENTROPY || a > PAST_MASK || a - b < FLAT_MARGIN) return null;
  return {
    cause: 'flat-softmax',
    summary: 'attention near uniform where it should not be: a vanishing softmax scale or collapsed logits',
    evidence: `mean attn_probs entropy / ln(keys): ${culpritName(f, t)} ${fmt(a)}, ${f.witness} ${fmt(b)}`,
  };
};

/**
 * The culprit's rows spread over more keys than the causal mask admits: a mean entropy / ln(keys it may see) past 1, which
 * no causal softmax reaches (H ≤ ln k over k keys).
 */
export const causalMaskSig: Signature = (f, _c, t) => {
  if (!f.culprit) return null;
  const a = f.entropy(f.culprit);
  if (a === undefined || a <= PAST_MASK) return lastTokenOnly(f, t);
  const b = f.witness ? f.entropy(f.witness) : undefined;
  return {
    cause: 'causal-mask',
    summary: 'attention rows see keys the causal mask hides (a mask off by one, or none): their entropy exceeds ln(keys allowed)',
    evidence:
      `mean attn_probs entropy / ln(keys allowed): ${culpritName(f, t)} ${fmt(a)} > 1` +
      (b === undefined ? '' : `, ${f.witness} ${fmt(b)}`),
  };
};

/**
 * At the first stage the mask reaches (logits after masking, attn_probs), every token of the piece diverges but its last,
 * the one with no later key to see: the mask admits the key after the diagonal. Holds where the entropy test cannot (a
 * peaked softmax stays under ln(keys allowed) even with one key too many: GLM-5's rows).
 */
function lastTokenOnly(f: Parameters<Signature>[0], t: CaseTrace): ReturnType<Signature> {
  const d = f.detail;
  if (!d?.perToken || d.perToken.length < 2 || !['attn_probs', 'logits'].includes(f.first.stage)) return null;
  const tol = f.tolerance;
  const last = d.perToken.length - 1;
  if (!(d.perToken[last]! <= tol) || !d.perToken.slice(0, last).every((e) => e > tol)) return null;
  return {
    cause: 'causal-mask',
    summary: 'attention rows see the key after the diagonal (a causal mask off by one): every token diverges but the last',
    evidence:
      `${f.first.stage} ${culpritName(f, t)} vs ${d.b}: relErr ${fmt(least(d.perToken.slice(0, last)))}–` +
      `${fmt(most(d.perToken.slice(0, last)))} at tokens 0–${last - 1}, ${fmt(d.perToken[last]!)} at the last (${last})`,
  };
}

/** ‖culprit‖ / ‖witness‖ at the first divergence equal to a constant of a known bug. */
export const normRatioSig: Signature = (f, c, t) => {
  if (!f.culprit || !f.witness) return null;
  const a = f.stats(f.culprit, f.first.stage, f.first.chunk)?.l2;
  const b = f.stats(f.witness, f.first.stage, f.first.chunk)?.l2;
  if (a === undefined || b === undefined || !(b > 0)) return null;
  const r = a / b;
  const y = c.rope_scaling;
  const known: [number, string, FaultName?][] =
    f.first.stage === 'logits'
      ? [
          [
            (qkHeadDim(c) / latentWidth(c)) ** 0.5,
            `√(${qkHeadDim(c)}/${latentWidth(c)}): the scale of the (L+R)-wide latent query instead of qk_head_dim`,
            'softmax-scale-latent',
          ],
          [K_SCALE, `k_scale ${K_SCALE} multiplied into the scores`, 'k-scale-bf16-cache'],
          [softmaxScale(c), `the softmax scale ${fmt(softmaxScale(c))}: applied twice (to q or the scores, and again)`],
          [1 / softmaxScale(c), `1 / the softmax scale (${fmt(1 / softmaxScale(c))}): raw q·kᵀ, the scale never applied`],
          ...(y
            ? ([
                [qkHeadDim(c) ** -0.5 / softmaxScale(c), `1/mscale²: YaRN's mscale² left out of the scale`, 'yarn-mscale-missing'],
                [
                  (qkHeadDim(c) ** -0.5 * yarnGetMscale(y.factor, y.mscale_all_dim / 10) ** 2) / softmaxScale(c),
                  'mscale² with a 10× smaller log term',
                  'yarn-log-mul-misread',
                ],
              ] as [number, string, FaultName][])
            : []),
        ]
      : QUERY_STAGES.includes(f.first.stage)
        ? [[softmaxScale(c), `the softmax scale ${fmt(softmaxScale(c))}: the query handed over pre-multiplied by it`]]
        : OUTPUT_STAGES.includes(f.first.stage)
          ? [
              [
                1 / c.kv_lora_rank,
                `1/kv_lora_rank (1/${c.kv_lora_rank}): a mean where a sum over the latent axis was due ` +
                  "(the GLM-5 bug hunt's attention output norm 0.0586 against ~30)",
              ],
            ]
          : [];
  const hit = known.find(([v]) => near(r, v, 1e-3));
  if (!hit) return null;
  return {
    cause: 'norm-ratio',
    summary: `‖${f.first.stage}‖ scaled by ${hit[1]}`,
    evidence: `‖${f.first.stage}‖ ${culpritName(f, t)} / ${f.witness} = ${fmt(r)} (constant ${fmt(hit[0])})`,
    ...(hit[2] ? { matches: hit[2] } : {}),
  };
};
