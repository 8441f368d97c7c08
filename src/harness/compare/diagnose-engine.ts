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

/** A product stage, the stage it multiplies, the GGUF tensor (llama.cpp name) and the checkpoint's weight it multiplies by. */
const PRODUCTS: Partial<Record<StageName, [StageName, string, string]>> = {
  q_c_raw: ['hidden_in', 'attn_q_a', 'q_a_proj'],
  kv_lora: ['hidden_in', 'attn_kv_a_mqa', 'kv_a_proj_with_mqa'],
  q_full_prerope: ['q_c', 'attn_q_b', 'q_b_proj'],
  ql_nope: ['q_nope', 'attn_k_b', "kv_b_proj's K rows (W_UK)"],
  kv_nope: ['kv_c_normed', 'attn_kv_b', 'kv_b_proj'],
  k_nope: ['kv_c_normed', 'attn_k_b', "kv_b_proj's K rows (W_UK)"],
  v: ['kv_c_normed', 'attn_v_b', "kv_b_proj's V rows (W_UV)"],
  attn_out_heads: ['attn_out_latent', 'attn_v_b', "kv_b_proj's V rows (W_UV)"],
  o_proj_out: ['attn_out', 'attn_output', 'o_proj'],
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

/** An engine's op parameter (a backend's reported scale goes through softmaxScaleSig's known constants instead). */
const scaleSig: EngineSignature = (f, c, t) => {
  if (!external(f) || t.external?.kind !== 'engine' || !['logits', 'attn_probs'].includes(f.first.stage)) return null;
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

/**
 * A product the third party introduces while its input agrees: the weight it multiplies by differs (an engine: the model
 * file's tensor; a backend, handed our checkpoint: its reading of the weight). k_nope and v with kv_nope agreeing: the slice.
 */
const weightSig: EngineSignature = (f, _c, t) => {
  const p = PRODUCTS[f.first.stage];
  if (!external(f) || !p || !f.agrees(p[0])) return null;
  const a = f.stats('external', f.first.stage)?.l2;
  const b = f.stats(f.witness ?? 'reference', f.first.stage)?.l2;
  const moved = a !== undefined && b !== undefined && near(a, b, 1e-4);
  const engine = t.external?.kind === 'engine';
  const sliced = (f.first.stage === 'k_nope' || f.first.stage === 'v') && f.agrees('kv_nope');
  const summary = sliced
    ? `${who(t)}'s ${f.first.stage} departs while kv_nope agrees: it slices kv_nope's [P | V] halves wrongly`
    : engine
      ? `${who(t)}'s ${f.first.stage} departs while its input ${p[0]} agrees: the model file's ${p[1]} differs`
      : `${who(t)}'s ${f.first.stage} departs while its input ${p[0]} agrees: it applies ${p[2]} wrongly ` +
        '(the same checkpoint, read or laid out otherwise)';
  return {
    cause: 'weight-differs',
    summary,
    evidence: moved
      ? `norms equal (${fmt(a)}), elements differ (rel ${fmt(f.first.relErr ?? NaN)}): ` +
        'the right values in other places (a permute or transpose)'
      : `rel err ${fmt(f.first.relErr ?? NaN)}, norm ratio ${fmt(f.first.normRatio ?? NaN)}`,
    ...(!engine || sliced
      ? {}
      : p[1] === 'attn_k_b' && f.first.stage === 'ql_nope'
        ? { matches: 'k-b-untransposed' as const }
        : p[1] === 'attn_v_b' && f.first.stage === 'attn_out_heads'
          ? { matches: 'v-b-wrong-half' as const }
          : {}),
  };
};

/** The third party's own parameters and norms: checked before the general signatures. */
export const ENGINE_SIGNATURES: readonly EngineSignature[] = [ropeParamsSig, scaleSig, normOnesSig];
/** The product fallback: after every more specific signature (a rounding's exact size, a known constant) had its say. */
export const ENGINE_FALLBACKS: readonly EngineSignature[] = [weightSig];
