import type { MlaConfig } from '../../core/model/config';
import { softmaxScale } from '../../core/model/config';
import type { CaseTrace, Diagnosis } from '../../trace';
import type { StageName } from '../../trace/stages';
import type { Facts } from './diagnose-facts';
import { fmt, near } from './diagnose-facts';

/**
 * Causes when the third party (an engine, an external backend) is the culprit: it cannot be
 * replayed, so each signature reads what it recorded (its op parameters, its norms) and whether
 * the inputs of the stage where it departs agree (then that stage introduced the error).
 */
type EngineSignature = (f: Facts, c: MlaConfig, t: CaseTrace) => Diagnosis | null;

/** A product stage, the stage it multiplies and the GGUF tensor (llama.cpp name) it multiplies by. */
const PRODUCTS: Partial<Record<StageName, [StageName, string]>> = {
  q_c_raw: ['hidden_in', 'attn_q_a'],
  kv_lora: ['hidden_in', 'attn_kv_a_mqa'],
  q_full_prerope: ['q_c', 'attn_q_b'],
  ql_nope: ['q_nope', 'attn_k_b'],
  kv_nope: ['kv_c_normed', 'attn_kv_b'],
  attn_out_heads: ['attn_out_latent', 'attn_v_b'],
  o_proj_out: ['attn_out', 'attn_output'],
};
const NORMS: Partial<Record<StageName, [number, string]>> = { q_c: [0, 'attn_q_a_norm'], kv_c_normed: [1, 'attn_kv_a_norm'] };

const external = (f: Facts) => f.first.culprit === 'external';
const who = (t: CaseTrace) => t.external?.name ?? 'external';

const ropeParamsSig: EngineSignature = (f, c, t) => {
  const op = t.external?.engine?.opScalars;
  if (!external(f) || !op || !['q_pe', 'k_pe', 'q', 'k', 'mqa_q'].includes(f.first.stage)) return null;
  const base = op.rope_freq_base;
  const dims = op.rope_n_dims;
  const wrong: string[] = [];
  if (base !== undefined && !near(base, c.rope_theta, 1e-6)) wrong.push(`freq_base ${fmt(base)} where the config has ${fmt(c.rope_theta)}`);
  if (dims !== undefined && dims !== c.qk_rope_head_dim) wrong.push(`n_dims ${dims} where qk_rope_head_dim is ${c.qk_rope_head_dim}`);
  if (!wrong.length) return null;
  return {
    cause: 'rope-parameters',
    summary: `${who(t)} rotates with ${wrong.join(' and ')}: the model file's rope.* keys`,
    evidence: `its ROPE op's parameters; ${f.first.stage} departs while the pre-RoPE stages agree`,
    matches: base !== undefined && !near(base, c.rope_theta, 1e-6) ? 'rope-freq-base' : 'rope-dimension-count',
  };
};

const scaleSig: EngineSignature = (f, c, t) => {
  if (!external(f) || !['logits', 'attn_probs'].includes(f.first.stage)) return null;
  const ext = f.scalar('external', 'softmax_scale');
  const want = f.scalar('reference', 'softmax_scale') ?? softmaxScale(c);
  if (typeof ext !== 'number' || typeof want !== 'number' || near(ext, want, 1e-6)) return null;
  const yarn = c.rope_scaling ? `; with YaRN the scale is mscale²/√(P+R): the model file's rope.scaling.yarn_log_multiplier` : '';
  return {
    cause: 'softmax-scale',
    summary: `${who(t)} scales the logits by ${fmt(ext)}, the config's softmax scale is ${fmt(want)} (×${fmt(ext / want)})${yarn}`,
    evidence: `its SOFT_MAX op's scale; q and the K cache agree`,
    ...(c.rope_scaling ? { matches: 'yarn-log-multiplier-unscaled' as const } : {}),
  };
};

const normOnesSig: EngineSignature = (f, c, t) => {
  const n = NORMS[f.first.stage];
  if (!external(f) || !n) return null;
  const s = f.stats('external', f.first.stage);
  if (!s) return null;
  const width = n[0] === 0 ? c.q_lora_rank : c.kv_lora_rank;
  const bare = Math.sqrt(s.size);
  if (!near(s.l2, bare, 1e-3) || s.size % width !== 0) return null;
  return {
    cause: 'norm-weight-ones',
    summary: `${who(t)}'s ${n[1]} weight is all ones (missing from the model file): ${f.first.stage} is the bare RMS-normalized row`,
    evidence: `‖${f.first.stage}‖ = ${fmt(s.l2)} = √(${s.size}) (rows of norm √${width}); its input agrees`,
    matches: n[0] === 0 ? 'q-a-norm-ones' : 'kv-a-norm-ones',
  };
};

const weightSig: EngineSignature = (f, _c, t) => {
  const p = PRODUCTS[f.first.stage];
  if (!external(f) || !p || f.verdict(p[0])?.verdict !== 'ok') return null;
  const a = f.stats('external', f.first.stage)?.l2;
  const b = f.stats(f.witness ?? 'reference', f.first.stage)?.l2;
  const moved = a !== undefined && b !== undefined && near(a, b, 1e-4);
  return {
    cause: 'weight-differs',
    summary: `${f.first.stage} is introduced by ${who(t)} while its input ${p[0]} agrees: the model file's ${p[1]} differs`,
    evidence: moved
      ? `norms equal (${fmt(a)}), elements differ (rel ${fmt(f.first.relErr ?? NaN)}): ` +
        'the right values in other places (a permute or transpose)'
      : `rel err ${fmt(f.first.relErr ?? NaN)}, norm ratio ${fmt(f.first.normRatio ?? NaN)}`,
    ...(p[1] === 'attn_k_b' ? { matches: 'k-b-untransposed' as const } : p[1] === 'attn_v_b' ? { matches: 'v-b-wrong-half' as const } : {}),
  };
};

export const ENGINE_SIGNATURES: readonly EngineSignature[] = [ropeParamsSig, scaleSig, normOnesSig, weightSig];
