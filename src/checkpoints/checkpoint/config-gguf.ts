import { MlaDiffError } from '../../errors';
import type { GgufEntry, GgufValue } from '../../formats/gguf/types';
import type { MlaConfig, YarnScaling } from '../../core/model/config';

/** Architectures whose attention is MLA in llama.cpp (LLM_ARCH_DEEPSEEK2, LLM_ARCH_GLM_DSA). */
export const MLA_ARCHS = ['deepseek2', 'glm-dsa'] as const;

const num = (v: GgufValue | undefined, layer: number): number | undefined => {
  if (Array.isArray(v)) return num(v[layer], layer); // per-layer arrays (e.g. head_count in some files)
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : undefined;
};

/**
 * The MLA config of a GGUF file from its metadata (llama-arch.cpp key names, prefix =
 * general.architecture). qk_nope is not stored: key_length_mla − rope.dimension_count. Older
 * files without *_mla keys stored the per-head dims in key_length / value_length.
 */
export function configFromGguf(meta: ReadonlyMap<string, GgufEntry>, file: string, layer: number, vocabRows?: number): MlaConfig {
  const arch = meta.get('general.architecture')?.value;
  if (typeof arch !== 'string' || !(MLA_ARCHS as readonly string[]).includes(arch)) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `general.architecture is ${JSON.stringify(arch ?? null)}, not an MLA model`,
      { file, field: 'general.architecture' },
      `supported: ${MLA_ARCHS.join(', ')} (GLM-5, DeepSeek-V2/V3)`,
    );
  }
  const get = (key: string): number | undefined => num(meta.get(`${arch}.${key}`)?.value, layer);
  const need = (key: string): number => {
    const v = get(key);
    if (v === undefined) {
      throw new MlaDiffError(
        'checkpoint-invalid',
        'missing metadata key',
        { file, field: `${arch}.${key}` },
        'the file was not written by a converter that knows MLA (convert_hf_to_gguf.py DeepseekV2Model)',
      );
    }
    return v;
  };
  const rope = need('rope.dimension_count');
  const qk = get('attention.key_length_mla') ?? need('attention.key_length');
  const v = get('attention.value_length_mla') ?? need('attention.value_length');
  const type = meta.get(`${arch}.rope.scaling.type`)?.value;
  let rope_scaling: YarnScaling | null = null;
  if (type === 'yarn') {
    // GGUF stores yarn_log_multiplier = 0.1·mscale_all_dim (the legacy pre-scaled form, llama.cpp #17945).
    const logMul = get('rope.scaling.yarn_log_multiplier') ?? 0.1;
    rope_scaling = {
      type: 'yarn',
      factor: need('rope.scaling.factor'),
      mscale: logMul / 0.1,
      mscale_all_dim: logMul / 0.1,
      original_max_position_embeddings: need('rope.scaling.original_context_length'),
      beta_fast: get('rope.scaling.yarn_beta_fast') ?? 32,
      beta_slow: get('rope.scaling.yarn_beta_slow') ?? 1,
    };
  } else if (type !== undefined && type !== 'none') {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `rope scaling "${String(type)}" is not supported`,
      { file, field: `${arch}.rope.scaling.type` },
      'supported: none, yarn',
    );
  }
  const tokens = meta.get('tokenizer.ggml.tokens')?.value;
  const vocab = get('vocab_size') ?? vocabRows ?? (Array.isArray(tokens) ? tokens.length : undefined);
  if (vocab === undefined)
    throw new MlaDiffError('checkpoint-invalid', 'cannot tell the vocabulary size', { file, field: `${arch}.vocab_size` });
  return {
    hidden_size: need('embedding_length'),
    num_attention_heads: need('attention.head_count'),
    q_lora_rank: need('attention.q_lora_rank'),
    kv_lora_rank: need('attention.kv_lora_rank'),
    qk_nope_head_dim: qk - rope,
    qk_rope_head_dim: rope,
    v_head_dim: v,
    rope_theta: get('rope.freq_base') ?? 10_000,
    // deepseek2 and glm-dsa rotate with LLAMA_ROPE_TYPE_NORM: interleaved pairs (2i, 2i+1).
    rope_interleave: true,
    rope_scaling,
    rms_norm_eps: need('attention.layer_norm_rms_epsilon'),
    max_position_embeddings: need('context_length'),
    vocab_size: vocab,
  };
}
