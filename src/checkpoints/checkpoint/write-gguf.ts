import { GGML_TYPES } from '../../formats/gguf/ggml-types';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { quantizeRows } from '../../formats/gguf/codecs';
import type { GgufEntry } from '../../formats/gguf/types';
import type { LazyTensor } from '../../formats/gguf/write';
import { writeGguf } from '../../formats/gguf/write';
import { writeGgufSplit } from '../../formats/gguf/write-split';
import { MLA_DIFF_QUANTIZER_KEY, QUANTIZER_ENTRY } from '../../formats/gguf/quant-bounds';
import type { MlaConfig } from '../../core/model/config';
import type { WeightSource } from '../../core/weights/layer';
import { LAYER_TENSORS, linearShape, normLength } from '../../core/weights/layer';
import { splitKvB } from './kv-b';
import { GGUF_EMBEDDINGS, ggufKB, ggufName, ggufVB } from './names';

/**
 * llama.cpp's fallback when a row is not a whole number of blocks (llama-quant.cpp): K-quants
 * and IQ types step down to a 32-block type, and to F16 when even that does not fit.
 */
export function fallbackType(t: GgmlType, ne0: number): GgmlType {
  if (ne0 % GGML_TYPES[t].block === 0) return t;
  const next: Partial<Record<GgmlType, GgmlType>> = {
    Q2_K: 'IQ4_NL',
    Q3_K: 'IQ4_NL',
    IQ4_XS: 'IQ4_NL',
    Q4_K: 'Q5_0',
    Q5_K: 'Q5_1',
    Q6_K: 'Q8_0',
  };
  const t2 = next[t];
  return t2 && ne0 % GGML_TYPES[t2].block === 0 ? t2 : 'F16';
}

export interface GgufCheckpointSpec {
  config: MlaConfig;
  /** One source per layer (layer N = blk.N). */
  layers: readonly WeightSource[];
  /** Type of the 2-D weights (with llama.cpp's per-tensor fallback); norms stay F32. */
  type: GgmlType;
  embeddingType?: GgmlType;
  /** split: attn_k_b + attn_v_b as current converters write; merged: legacy attn_kv_b. */
  kvB: 'split' | 'merged';
  /** tokenizer.ggml.* entries (a trained or real vocabulary). */
  vocab?: ReadonlyMap<string, GgufEntry>;
  /** Split over this many shards (gguf-split naming); 1 = one file. */
  shards?: number;
  arch?: 'deepseek2' | 'glm-dsa';
  /** More metadata and tensors (a runnable model's FFN, output head, indexer): src/engines/llamacpp/model-gguf.ts. */
  extra?: { meta: ReadonlyMap<string, GgufEntry>; tensors: readonly LazyTensor[] };
  /** Metadata keys left out (a legacy conversion has no *_mla keys). */
  drop?: readonly string[];
  /** Rewrites a tensor's values (PyTorch order) before it is encoded: a planted converter bug. */
  transform?: (name: string, values: Float32Array) => Float32Array;
}

const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });
const f32 = (value: number): GgufEntry => ({ type: 'FLOAT32', value });

/** The metadata a DeepseekV2Model conversion writes for the attention of this config. */
export function mlaMetadata(c: MlaConfig, arch: string, layers: number): Map<string, GgufEntry> {
  const m = new Map<string, GgufEntry>([
    ['general.architecture', { type: 'STRING', value: arch }],
    ['general.name', { type: 'STRING', value: 'mla-diff fixture' }],
    [MLA_DIFF_QUANTIZER_KEY, QUANTIZER_ENTRY],
    [`${arch}.block_count`, u32(layers)],
    [`${arch}.context_length`, u32(c.max_position_embeddings)],
    [`${arch}.embedding_length`, u32(c.hidden_size)],
    [`${arch}.attention.head_count`, u32(c.num_attention_heads)],
    [`${arch}.attention.head_count_kv`, u32(1)],
    [`${arch}.attention.q_lora_rank`, u32(c.q_lora_rank)],
    [`${arch}.attention.kv_lora_rank`, u32(c.kv_lora_rank)],
    [`${arch}.attention.key_length`, u32(c.kv_lora_rank + c.qk_rope_head_dim)],
    [`${arch}.attention.value_length`, u32(c.kv_lora_rank)],
    [`${arch}.attention.key_length_mla`, u32(c.qk_nope_head_dim + c.qk_rope_head_dim)],
    [`${arch}.attention.value_length_mla`, u32(c.v_head_dim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(c.rms_norm_eps)],
    [`${arch}.rope.dimension_count`, u32(c.qk_rope_head_dim)],
    [`${arch}.rope.freq_base`, f32(c.rope_theta)],
    [`${arch}.vocab_size`, u32(c.vocab_size)],
  ]);
  const y = c.rope_scaling;
  if (y) {
    m.set(`${arch}.rope.scaling.type`, { type: 'STRING', value: 'yarn' });
    m.set(`${arch}.rope.scaling.factor`, f32(y.factor));
    m.set(`${arch}.rope.scaling.original_context_length`, u32(y.original_max_position_embeddings));
    m.set(`${arch}.rope.scaling.yarn_log_multiplier`, f32(0.1 * y.mscale_all_dim));
  }
  return m;
}

export { lazyTensorOf as lazyTensor };

/** A tensor quantized only when the writer reaches it. `values` is PyTorch order, ne = reversed shape. */
export function lazyTensorOf(name: string, shape: readonly number[], type: GgmlType, values: () => Float32Array): LazyTensor {
  const ne = [...shape].reverse();
  const t = fallbackType(type, ne[0]!);
  return { name, ne, type: t, produce: () => quantizeRows(t, values(), ne[0]!) };
}

/** Writes a GGUF checkpoint of MLA layers (our own writer; used for fixtures and the load bench). */
export function writeGgufCheckpoint(path: string, spec: GgufCheckpointSpec): string[] {
  const c = spec.config;
  const tf = spec.transform;
  const lazyTensor: typeof lazyTensorOf = tf
    ? (name, shape, type, values) => lazyTensorOf(name, shape, type, () => tf(name, values()))
    : lazyTensorOf;
  const arch = spec.arch ?? 'deepseek2';
  const meta = mlaMetadata(c, arch, spec.layers.length);
  for (const [k, v] of spec.vocab ?? []) meta.set(k, v);
  const first = spec.layers[0]!;
  const tensors: LazyTensor[] = [
    lazyTensor(GGUF_EMBEDDINGS, [c.vocab_size, c.hidden_size], spec.embeddingType ?? spec.type, () =>
      first.embeddings(Array.from({ length: c.vocab_size }, (_, i) => i)),
    ),
  ];
  spec.layers.forEach((src, n) => {
    for (const t of LAYER_TENSORS) {
      if (t === 'input_layernorm' || t === 'q_a_layernorm' || t === 'kv_a_layernorm') {
        tensors.push(lazyTensor(ggufName(n, t), [normLength(c, t)], 'F32', () => src.norm(t)));
        continue;
      }
      const [rows, cols] = linearShape(c, t);
      const full = () => {
        const w = new Float32Array(rows * cols);
        src.block(t, [0, rows], [0, cols], 'out_in', w);
        return w;
      };
      if (t !== 'kv_b_proj' || spec.kvB === 'merged') {
        tensors.push(lazyTensor(ggufName(n, t), [rows, cols], spec.type, full));
        continue;
      }
      const d = { heads: c.num_attention_heads, nope: c.qk_nope_head_dim, v: c.v_head_dim, rank: c.kv_lora_rank };
      tensors.push(lazyTensor(ggufKB(n), [d.heads, d.rank, d.nope], spec.type, () => splitKvB(full(), d).kB));
      tensors.push(lazyTensor(ggufVB(n), [d.heads, d.v, d.rank], spec.type, () => splitKvB(full(), d).vB));
    }
  });
  for (const [k, v] of spec.extra?.meta ?? []) meta.set(k, v);
  tensors.push(...(spec.extra?.tensors ?? []));
  for (const k of spec.drop ?? []) meta.delete(k);
  const shards = spec.shards ?? 1;
  if (shards === 1) {
    writeGguf(path, meta, tensors);
    return [path];
  }
  return writeGgufSplit(path.replace(/\.gguf$/, ''), meta, tensors, shards);
}
