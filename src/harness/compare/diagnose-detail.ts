import type { FaultName } from '../../core/faults/catalogue';
import { K_SCALE } from '../../core/faults/catalogue';
import type { MlaConfig } from '../../core/model/config';
import { latentWidth, qkHeadDim, softmaxScale, yarnGetMscale } from '../../core/model/config';
import type { StageName } from '../../trace/stages';
import type { CaseTrace, Diagnosis } from '../../trace';
import type { Facts } from './diagnose-facts';
import { fmt, near } from './diagnose-facts';

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
const OUTPUT_STAGES: readonly StageName[] = [
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
  'suffix_output',
  'chunk_output',
  'context_output',
];

const tolAt = (f: Facts) => f.verdict(f.first.stage, f.first.chunk)?.tolerance ?? 0;
const list = (xs: number[]) => (xs.length > 6 ? `${xs.slice(0, 6).join(', ')}, …` : xs.join(', '));

/** Every token at RoPE position 0 agrees, every other diverges: the rotation (identity at 0) is wrong. */
export const positionZeroSig: Signature = (f) => {
  const d = f.detail;
  if (!d?.perToken || !ROPE_STAGES.includes(f.first.stage)) return null;
  const tol = tolAt(f);
  const zero = d.positions.flatMap((p, t) => (p === 0 ? [t] : []));
  const rest = d.perToken.filter((_, t) => d.positions[t] !== 0);
  if (!zero.length || !rest.length || !zero.every((t) => d.perToken![t]! <= tol) || !rest.every((e) => e > tol)) return null;
  return {
    cause: 'rope-convention',
    summary: 'agreement only at RoPE position 0, where every rotation is the identity: the RoPE pairing (NeoX vs GPT-J) or its frequencies',
    evidence:
      `${f.first.stage} ${d.a} vs ${d.b}: relErr ${fmt(d.perToken[zero[0]!]!)} at position 0, ` +
      `${fmt(Math.min(...rest))}–${fmt(Math.max(...rest))} at positions ${list(d.positions.filter((p) => p !== 0))}`,
  };
};

/** Some heads agree, the others do not: head slicing, a tensor-parallel offset, a per-head kernel bug. */
export const headSubsetSig: Signature = (f) => {
  const e = f.detail?.perHead;
  if (!e || e.length < 2) return null;
  const tol = tolAt(f);
  const agree = e.flatMap((x, h) => (x <= tol ? [h] : []));
  const differ = e.flatMap((x, h) => (x > tol ? [h] : []));
  if (!agree.length || !differ.length) return null;
  const evidence =
    `${f.first.stage} ${f.detail!.a} vs ${f.detail!.b}: ` +
    `heads ${list(agree)} agree (relErr ≤ ${fmt(Math.max(...agree.map((h) => e[h]!)))}), ` +
    `heads ${list(differ)} do not (${fmt(Math.min(...differ.map((h) => e[h]!)))}–${fmt(Math.max(...differ.map((h) => e[h]!)))})`;
  if (f.first.stage === 'k' && f.culprit === 'mha' && agree.length === 1 && agree[0] === 0 && f.verdict('k_pe')?.verdict === 'ok') {
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
export const flatSoftmaxSig: Signature = (f) => {
  if (!f.culprit || !f.witness) return null;
  const [a, b] = [f.entropy(f.culprit), f.entropy(f.witness)];
  if (a === undefined || b === undefined || a < FLAT_ENTROPY || a - b < FLAT_MARGIN) return null;
  return {
    cause: 'flat-softmax',
    summary: 'attention near uniform where it should not be: a vanishing softmax scale or collapsed logits',
    evidence: `mean attn_probs entropy / ln(keys): ${f.culprit} ${fmt(a)}, ${f.witness} ${fmt(b)}`,
  };
};

/** ‖culprit‖ / ‖witness‖ at the first divergence equal to a constant of a known bug. */
export const normRatioSig: Signature = (f, c) => {
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
    evidence: `‖${f.first.stage}‖ ${f.culprit} / ${f.witness} = ${fmt(r)} (constant ${fmt(hit[0])})`,
    ...(hit[2] ? { matches: hit[2] } : {}),
  };
};

/** W_UK_T carries the norm of the witness's W_UV and W_UV that of its W_UK_T. */
export const swappedWeightsSig: Signature = (f) => {
  if (f.culprit !== 'mqa' || f.first.stage !== 'W_UK_T' || !f.witness) return null;
  const n = (p: 'mqa' | typeof f.witness, s: StageName) => f.stats(p, s)?.l2;
  const [uk, uv, wk, wv] = [n('mqa', 'W_UK_T'), n('mqa', 'W_UV'), n(f.witness, 'W_UK_T'), n(f.witness, 'W_UV')];
  if (
    uk === undefined ||
    uv === undefined ||
    wk === undefined ||
    wv === undefined ||
    near(wk, wv, 1e-4) ||
    !near(uk, wv, 1e-5) ||
    !near(uv, wk, 1e-5)
  )
    return null;
  return {
    cause: 'absorbed-weights',
    summary: "W_UK and W_UV swapped: each absorbed weight holds the other's block",
    evidence: `‖W_UK_T‖ mqa ${fmt(uk)} = ‖W_UV‖ ${f.witness}; ‖W_UV‖ mqa ${fmt(uv)} = ‖W_UK_T‖ ${f.witness} (${fmt(wk)})`,
    matches: 'w-uk-uv-swapped',
  };
};

/** With context, every merge input and the LSE agree, the merged values do not, and V < D: the V-padded outputs read unpadded. */
export const unpaddedMergeSig: Signature = (f, c) => {
  if (f.culprit !== 'mha' || !['attn_out_heads', 'context_output'].includes(f.first.stage) || f.scalar('mha', 'has_context') !== true)
    return null;
  if (c.v_head_dim >= qkHeadDim(c)) return null;
  const inputs = (['suffix_output', 'chunk_output', 'chunk_lse', 'suffix_lse'] as StageName[]).flatMap((s) =>
    Array.from({ length: 1 + (f.first.chunk ?? 8) }, (_, i) => f.verdict(s, s.startsWith('chunk') ? i : undefined)),
  );
  const lseOk =
    f.first.stage === 'context_output' ? f.verdict('context_lse', f.first.chunk)?.verdict === 'ok' : f.verdict('lse')?.verdict === 'ok';
  if (!lseOk || inputs.some((v) => v && v.verdict !== 'ok')) return null;
  return {
    cause: 'merge-inputs',
    summary:
      `merge_attn_states reads the attention outputs as dense [T,N,${c.v_head_dim}] ` +
      `while they are views of the [T,N,${qkHeadDim(c)}] V-padded buffer: unpadded before the merge`,
    evidence:
      `the outputs and LSEs merged agree, the merged LSE agrees, the merged values do not (${f.first.stage}); ` +
      `v_head_dim ${c.v_head_dim} < qk_head_dim ${qkHeadDim(c)}`,
    matches: 'v-unpadded-before-merge',
  };
};
