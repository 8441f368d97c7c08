import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TensorToWrite } from '../../formats/safetensors';
import { writeSafetensors, writeShardedSafetensors } from '../../formats/safetensors';
import type { MlaConfig } from '../../core/model/config';
import type { TrainedBpe } from '../tokenizer';
import type { WeightSource } from '../../core/weights/layer';
import { LAYER_TENSORS, linearShape, normLength } from '../../core/weights/layer';
import { HF_EMBEDDINGS, hfName } from './names';

export interface SafetensorsCheckpointSpec {
  config: MlaConfig;
  layers: readonly WeightSource[];
  /** Dtype of the 2-D projections: F8_E4M3 gets DeepSeek weight_scale_inv blocks; norms and embeddings stay BF16 (F32 if dtype is F32). */
  dtype: 'F32' | 'BF16' | 'F8_E4M3';
  blockSize?: [number, number];
  shards?: number;
  tokenizer?: TrainedBpe;
}

/** config.json as a DeepSeek-V3 / GLM-5 checkpoint spells it (attention fields only). */
export function hfConfigJson(c: MlaConfig, layers: number, fp8?: [number, number]): Record<string, unknown> {
  return {
    architectures: ['DeepseekV3ForCausalLM'],
    model_type: 'deepseek_v3',
    hidden_size: c.hidden_size,
    num_attention_heads: c.num_attention_heads,
    num_key_value_heads: c.num_attention_heads,
    num_hidden_layers: layers,
    q_lora_rank: c.q_lora_rank,
    kv_lora_rank: c.kv_lora_rank,
    qk_nope_head_dim: c.qk_nope_head_dim,
    qk_rope_head_dim: c.qk_rope_head_dim,
    v_head_dim: c.v_head_dim,
    rope_theta: c.rope_theta,
    rope_interleave: c.rope_interleave,
    rope_scaling: c.rope_scaling && { ...c.rope_scaling, rope_type: 'yarn' },
    rms_norm_eps: c.rms_norm_eps,
    max_position_embeddings: c.max_position_embeddings,
    vocab_size: c.vocab_size,
    torch_dtype: 'bfloat16',
    ...(fp8 ? { quantization_config: { quant_method: 'fp8', fmt: 'e4m3', activation_scheme: 'dynamic', weight_block_size: fp8 } } : {}),
  };
}

/** Writes a Hugging Face checkpoint directory: safetensors (sharded with an index when shards > 1), config.json, tokenizer files. */
export function writeSafetensorsCheckpoint(dir: string, spec: SafetensorsCheckpointSpec): void {
  const c = spec.config;
  const small = spec.dtype === 'F32' ? 'F32' : 'BF16';
  const first = spec.layers[0]!;
  const tensors: TensorToWrite[] = [
    {
      name: HF_EMBEDDINGS,
      dtype: small,
      shape: [c.vocab_size, c.hidden_size],
      data: first.embeddings(Array.from({ length: c.vocab_size }, (_, i) => i)),
    },
  ];
  spec.layers.forEach((src, n) => {
    for (const t of LAYER_TENSORS) {
      if (t === 'input_layernorm' || t === 'q_a_layernorm' || t === 'kv_a_layernorm') {
        tensors.push({ name: hfName(n, t), dtype: small, shape: [normLength(c, t)], data: src.norm(t) });
        continue;
      }
      const [rows, cols] = linearShape(c, t);
      const data = new Float32Array(rows * cols);
      src.block(t, [0, rows], [0, cols], 'out_in', data);
      tensors.push({ name: hfName(n, t), dtype: spec.dtype, shape: [rows, cols], data });
    }
  });
  mkdirSync(dir, { recursive: true });
  const block = spec.blockSize ?? [128, 128];
  const meta = { format: 'pt' };
  if ((spec.shards ?? 1) > 1) writeShardedSafetensors(dir, tensors, spec.shards!, meta, block);
  else writeSafetensors(join(dir, 'model.safetensors'), tensors, meta, block);
  const cfg = hfConfigJson(c, spec.layers.length, spec.dtype === 'F8_E4M3' ? block : undefined);
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(cfg, null, 2)}\n`);
  if (spec.tokenizer) {
    writeFileSync(join(dir, 'tokenizer.json'), `${JSON.stringify(spec.tokenizer.tokenizerJson)}\n`);
    writeFileSync(join(dir, 'tokenizer_config.json'), `${JSON.stringify(spec.tokenizer.tokenizerConfig, null, 2)}\n`);
  }
}
