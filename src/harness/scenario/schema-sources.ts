/** The scenario file's sources of the layer: the model config, the weights, an external backend's command and an engine's trace dump. */
import { z } from 'zod';
import { FIELD_MAX } from './field-limits';
import { GGUF_PLANTS } from '../../trace/faults';
import { ENGINE_NAMES } from '../../trace/scenario';
import { LOADER_FAULTS } from '../../checkpoints/checkpoint/kv-b';
import { PRESET_NAMES } from '../../core/model/presets';
import { STAGE_NAMES } from '../../trace/stages';
import { LINEAR_NAMES, NORM_NAMES } from '../../core/weights/layer';

const positiveInt = z.number().int().positive();

const yarn = z.strictObject({
  type: z.literal('yarn'),
  factor: z.number().positive(),
  mscale: z.number().default(1),
  mscale_all_dim: z.number().default(1),
  original_max_position_embeddings: positiveInt,
  beta_fast: z.number().default(32),
  beta_slow: z.number().default(1),
});

/** model: a preset plus any config.json field overridden inline. */
export const modelSchema = z.strictObject({
  /** Required with synthetic weights; a checkpoint brings its own config. */
  preset: z.enum(PRESET_NAMES as [string, ...string[]]).optional(),
  hidden_size: positiveInt.optional(),
  num_attention_heads: positiveInt.optional(),
  q_lora_rank: positiveInt.optional(),
  kv_lora_rank: positiveInt.optional(),
  qk_nope_head_dim: positiveInt.optional(),
  qk_rope_head_dim: positiveInt.optional(),
  v_head_dim: positiveInt.optional(),
  rope_theta: z.number().positive().optional(),
  rope_interleave: z.boolean().optional(),
  rope_scaling: yarn.nullable().optional(),
  rms_norm_eps: z.number().positive().optional(),
  max_position_embeddings: positiveInt.optional(),
  vocab_size: positiveInt.optional(),
});

/** Exactly one of synthetic:, gguf:, safetensors: (checked in resolve, with the line). */
export const weightsSchema = z.strictObject({
  synthetic: z
    .strictObject({
      seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      /** Multiplies named weights (a norm or a projection): activations large enough to reach a dtype's range. */
      gain: z.partialRecord(z.enum([...LINEAR_NAMES, ...NORM_NAMES] as [string, ...string[]]), z.number().positive()).optional(),
    })
    .optional(),
  /** A .gguf file or any shard of a split one, relative to the scenario file. */
  gguf: z.string().min(1).max(FIELD_MAX.path).optional(),
  /** A .safetensors file, a model.safetensors.index.json, or their directory (config.json beside them). */
  safetensors: z.string().min(1).max(FIELD_MAX.path).optional(),
  /** Which layer's attention (blk.N / model.layers.N). */
  layer: z.number().int().nonnegative().max(FIELD_MAX.layer).optional(),
  /** A tokenizer.json for prompt text (default: the GGUF's vocabulary, or tokenizer.json beside the safetensors). */
  tokenizer: z.string().min(1).max(FIELD_MAX.path).optional(),
  /** A planted loader bug, for testing the weight stage. */
  loader_fault: z.enum(LOADER_FAULTS as unknown as [string, ...string[]]).optional(),
});

/** Layouts and names of tensors an external backend or an engine dump writes (docs/external-backends.md). */
const layoutsSchema = z.record(z.string().max(FIELD_MAX.name), z.string().min(1).max(FIELD_MAX.name)).default({});
const namesSchema = z.record(z.string().min(1).max(FIELD_MAX.name), z.enum(STAGE_NAMES as [string, ...string[]])).default({});

/** external: a user's command computing the layer over the schedule (protocol version 1). */
export const externalSchema = z.strictObject({
  command: z.string().min(1).max(FIELD_MAX.command).optional(),
  name: z.string().min(1).max(FIELD_MAX.name).default('external'),
  timeout_s: z.number().positive().max(FIELD_MAX.timeoutS).default(600),
  stages: z
    .array(z.enum(STAGE_NAMES as [string, ...string[]]))
    .min(1)
    .optional(),
  layouts: layoutsSchema,
  names: namesSchema,
});

/** trace: an engine's dump of named tensors (.safetensors) or norms (.jsonl), relative to the scenario file. */
export const traceSchema = z.strictObject({
  file: z.string().min(1).max(FIELD_MAX.path).optional(),
  layouts: layoutsSchema,
  names: namesSchema,
});

/** One engine of `engines:`: a bare name (`llama.cpp`) or its settings (src/harness/engines). */
export const engineItemSchema = z.union([
  z.enum(ENGINE_NAMES),
  z.strictObject({
    name: z.enum(ENGINE_NAMES),
    /** Flash attention (FLASH_ATTN_EXT, K/V in F16) on or off; default off. */
    flash_attn: z.boolean().default(false),
    /** The K cache type; llama.cpp's default is f16. */
    cache_type: z.enum(['f32', 'f16']).default('f16'),
    threads: z.number().int().positive().max(256).default(2),
    gpu_layers: z.number().int().nonnegative().max(1024).default(0),
    timeout_s: z.number().positive().max(FIELD_MAX.timeoutS).default(600),
    /** deepseek2 (DeepSeek-V2/V3) or glm-dsa (GLM-5); default deepseek2. */
    arch: z.enum(['deepseek2', 'glm-dsa']).default('deepseek2'),
    /** split attn_k_b/attn_v_b (current converters) or merged attn_kv_b (legacy files: the MHA graph). */
    kv_b: z.enum(['split', 'merged']).default('split'),
    /** A converter bug planted in the engine's GGUF only. */
    plant: z.union([z.enum(GGUF_PLANTS), z.array(z.enum(GGUF_PLANTS))]).optional(),
  }),
]);
