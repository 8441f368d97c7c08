import type { GgufEntry } from '../../formats/gguf/types';
import type { LazyTensor } from '../../formats/gguf/write';
import type { MlaConfig } from '../../core/model/config';
import type { WeightSource } from '../../core/weights/layer';
import { lazyTensor, writeGgufCheckpoint } from '../../checkpoints/checkpoint/write-gguf';
import type { GgufPlant } from '../../trace/faults';
import { plantEffect } from './plants';

/** The architectures llama.cpp runs MLA under: DeepSeek-V2/V3 and GLM-5 (DSA; dense when top_k covers every key). */
export type EngineArch = 'deepseek2' | 'glm-dsa';

/** Rows of the dummy vocabulary: llama.cpp is fed the scenario's embeddings, never token ids. */
export const ENGINE_VOCAB = 256;
/** Width of the dense FFN llama.cpp requires after the attention (zeros: it is never compared). */
const FFN = 32;
/** The DSA indexer's head dim: the Hadamard rotation asserts a multiple of 64. */
const INDEXER_DIM = 64;

const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });
const zeros = (n: number) => () => new Float32Array(n);
const ones = (n: number) => () => new Float32Array(n).fill(1);

/** What a runnable model adds around the attention layer, and what was filled in rather than taken from the source. */
export interface RunnableExtras {
  meta: Map<string, GgufEntry>;
  tensors: LazyTensor[];
  filled: string[];
}

/** Keys and tensors llama.cpp requires of a one-layer deepseek2 / glm-dsa model beyond the attention (llama-cpp.md). */
export function runnableExtras(c: MlaConfig, arch: EngineArch, contextLength: number): RunnableExtras {
  const H = c.hidden_size;
  const meta = new Map<string, GgufEntry>([
    [`${arch}.feed_forward_length`, u32(FFN)],
    [`${arch}.expert_feed_forward_length`, u32(FFN)],
    [`${arch}.expert_shared_count`, u32(0)],
    [`${arch}.expert_count`, u32(0)],
    [`${arch}.expert_used_count`, u32(0)],
    [`${arch}.leading_dense_block_count`, u32(1)],
    ['tokenizer.ggml.model', { type: 'STRING', value: 'none' }],
  ]);
  const tensors: LazyTensor[] = [
    lazyTensor('output_norm.weight', [H], 'F32', ones(H)),
    lazyTensor('output.weight', [ENGINE_VOCAB, H], 'F32', zeros(ENGINE_VOCAB * H)),
    lazyTensor('blk.0.ffn_norm.weight', [H], 'F32', ones(H)),
    lazyTensor('blk.0.ffn_gate.weight', [FFN, H], 'F32', zeros(FFN * H)),
    lazyTensor('blk.0.ffn_up.weight', [FFN, H], 'F32', zeros(FFN * H)),
    lazyTensor('blk.0.ffn_down.weight', [H, FFN], 'F32', zeros(FFN * H)),
  ];
  const filled = ['output_norm (ones)', 'output (zeros)', `dense FFN of width ${FFN} (zeros)`, `a ${ENGINE_VOCAB}-row dummy vocabulary`];
  if (arch === 'glm-dsa') {
    meta.set(`${arch}.attention.indexer.head_count`, u32(1));
    meta.set(`${arch}.attention.indexer.key_length`, u32(INDEXER_DIM));
    meta.set(`${arch}.attention.indexer.top_k`, u32(contextLength));
    tensors.push(
      lazyTensor('blk.0.indexer.k_norm.weight', [INDEXER_DIM], 'F32', ones(INDEXER_DIM)),
      lazyTensor('blk.0.indexer.k_norm.bias', [INDEXER_DIM], 'F32', zeros(INDEXER_DIM)),
      lazyTensor('blk.0.indexer.proj.weight', [1, H], 'F32', zeros(H)),
      lazyTensor('blk.0.indexer.attn_k.weight', [INDEXER_DIM, H], 'F32', zeros(INDEXER_DIM * H)),
      lazyTensor('blk.0.indexer.attn_q_b.weight', [INDEXER_DIM, c.q_lora_rank], 'F32', zeros(INDEXER_DIM * c.q_lora_rank)),
    );
    filled.push(`a DSA indexer with top_k ${contextLength} (dense attention)`);
  }
  return { meta, tensors, filled };
}

export interface EngineModelSpec {
  /** The layer's weights as llama.cpp is to hold them (a head slice already applied). */
  source: WeightSource;
  arch: EngineArch;
  /** Positions the model must cover (context_length and the indexer's top_k). */
  contextLength: number;
  /** split attn_k_b + attn_v_b (current converters: the absorbed graph) or legacy attn_kv_b (the MHA graph). */
  kvB: 'split' | 'merged';
  /** Converter bugs planted in this file only (plants.ts). */
  plants?: readonly GgufPlant[];
}

export interface EngineModel {
  /** What was filled in around the layer. */
  filled: string[];
  /** What each planted bug wrote. */
  planted: string[];
}

/** Writes a runnable one-layer F32 model of the source's attention; says what was filled in and planted. */
export function writeEngineModel(path: string, spec: EngineModelSpec): EngineModel {
  const c: MlaConfig = {
    ...spec.source.config,
    vocab_size: ENGINE_VOCAB,
    max_position_embeddings: Math.max(spec.source.config.max_position_embeddings, spec.contextLength),
  };
  const extra = runnableExtras(c, spec.arch, c.max_position_embeddings);
  const a = `${spec.arch}.attention`;
  if (spec.kvB === 'merged') {
    // A pre-MLA conversion: per-head K of P+R and V of V, one KV head per query head, no *_mla keys.
    extra.meta.set(`${a}.head_count_kv`, u32(c.num_attention_heads));
    extra.meta.set(`${a}.key_length`, u32(c.qk_nope_head_dim + c.qk_rope_head_dim));
    extra.meta.set(`${a}.value_length`, u32(c.v_head_dim));
  }
  const drop = spec.kvB === 'merged' ? [`${a}.key_length_mla`, `${a}.value_length_mla`] : [];
  const plant = plantEffect(c, spec.arch, spec.plants ?? [], spec.source);
  for (const [k, v] of plant.meta) extra.meta.set(k, v);
  writeGgufCheckpoint(path, {
    config: c,
    layers: [plant.source],
    type: 'F32',
    kvB: spec.kvB,
    arch: spec.arch,
    extra,
    drop,
    ...(plant.transform ? { transform: plant.transform } : {}),
  });
  return { filled: extra.filled, planted: plant.notes };
}
