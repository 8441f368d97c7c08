import { z } from 'zod';
import { LOADER_FAULTS } from '../../checkpoints/checkpoint/kv-b';
import { FAULT_NAMES } from '../../core/faults/catalogue';
import { PRESET_NAMES } from '../../core/model/presets';
import { STAGE_NAMES } from '../../trace/stages';
import { WEIGHT_NAMES } from '../../core/weights/records';
import { LINEAR_NAMES, NORM_NAMES } from '../../core/weights/layer';
import { ACTIVATION_DTYPES, KERNEL_PRESETS, KV_CACHE_DTYPES, ROUND_POINTS } from '../../core/precision/plan';
import { CULPRITS } from './scenario';

/**
 * The scenario file format (YAML), version 1. zod gives typed parsing and issues with paths;
 * load.ts maps each path back to a line of the file.
 */
const positiveInt = z.number().int().positive();
/** `{rel: x}` a relative-L2 bound, or `{floor: k}` k × the record's noise floor; one of the two (checked in resolve). */
const tolerance = z.strictObject({ rel: z.number().nonnegative().optional(), floor: z.number().positive().optional() });

/** A path's rounding points: a kernel preset, or the points listed. */
const pathRounding = z.union([z.enum(KERNEL_PRESETS), z.array(z.enum(ROUND_POINTS))]);

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
const weightsSchema = z.strictObject({
  synthetic: z
    .strictObject({
      seed: z.number().int().nonnegative(),
      /** Multiplies named weights (a norm or a projection): activations large enough to reach a dtype's range. */
      gain: z.partialRecord(z.enum([...LINEAR_NAMES, ...NORM_NAMES] as [string, ...string[]]), z.number().positive()).optional(),
    })
    .optional(),
  /** A .gguf file or any shard of a split one, relative to the scenario file. */
  gguf: z.string().min(1).optional(),
  /** A .safetensors file, a model.safetensors.index.json, or their directory (config.json beside them). */
  safetensors: z.string().min(1).optional(),
  /** Which layer's attention (blk.N / model.layers.N). */
  layer: z.number().int().nonnegative().optional(),
  /** A tokenizer.json for prompt text (default: the GGUF's vocabulary, or tokenizer.json beside the safetensors). */
  tokenizer: z.string().min(1).optional(),
  /** A planted loader bug, for testing the weight stage. */
  loader_fault: z.enum(LOADER_FAULTS as unknown as [string, ...string[]]).optional(),
});

/** Layouts and names of tensors an external backend or an engine dump writes (docs/external-backends.md). */
const layoutsSchema = z.record(z.string(), z.string().min(1)).default({});
const namesSchema = z.record(z.string().min(1), z.enum(STAGE_NAMES as [string, ...string[]])).default({});

/** external: a user's command computing the layer over the schedule (protocol version 1). */
const externalSchema = z.strictObject({
  command: z.string().min(1).optional(),
  name: z.string().min(1).default('external'),
  timeout_s: z.number().positive().default(600),
  stages: z
    .array(z.enum(STAGE_NAMES as [string, ...string[]]))
    .min(1)
    .optional(),
  layouts: layoutsSchema,
  names: namesSchema,
});

/** trace: an engine's dump of named tensors (.safetensors) or norms (.jsonl), relative to the scenario file. */
const traceSchema = z.strictObject({
  file: z.string().min(1).optional(),
  layouts: layoutsSchema,
  names: namesSchema,
});

const caseSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only'),
  /** A contiguous run of heads. */
  heads: z.strictObject({ start: z.number().int().nonnegative(), count: positiveInt }).optional(),
  /** Tensor-parallel rank: heads [rank·N/size, (rank+1)·N/size). */
  tp: z.strictObject({ size: positiveInt, rank: z.number().int().nonnegative() }).optional(),
});

export const scenarioSchema = z.strictObject({
  version: z.literal(1).default(1),
  name: z.string().min(1),
  description: z.string().optional(),
  model: modelSchema,
  weights: weightsSchema.default({ synthetic: { seed: 0 } }),
  /** A second source of the same layer: every weight and every activation compared across the two. */
  compare_weights: weightsSchema.optional(),
  /** One request prefilled in one step; or give `requests:` for a serving schedule. */
  prompt: z
    .strictObject({
      /** The prompt: tokenized with the checkpoint's tokenizer when no ids are given, else a label for the ids. */
      text: z.string().optional(),
      ids: z.array(z.number().int().nonnegative()).min(1).optional(),
      /** Instead of ids: this many token ids drawn from the weight seed (long-context runs). */
      length: positiveInt.optional(),
      /** Absolute position of the first token (default 0). */
      start_position: z.number().int().nonnegative().default(0),
    })
    .optional(),
  /** Engine behaviour for schedules (all optional). */
  schedule: z
    .strictObject({
      /** Slots per block of the paged latent cache. */
      block_size: positiveInt.default(16),
      /** vLLM reorder_batch_threshold: pieces of at most this many tokens take the decode (MQA) path; Triton MLA 1, FlashMLA 128. */
      decode_threshold: positiveInt.default(1),
      /** Tokens per context chunk gathered into the MHA workspace (vLLM max_context_chunk). */
      context_chunk: positiveInt.default(65_536),
      /** Triton MLA num_kv_splits for the MQA path. */
      kv_splits: positiveInt.default(1),
      /** Prefill kernel: fa3 reports −inf LSE for an empty context chunk, fa2 +inf. */
      prefill_kernel: z.enum(['fa3', 'fa2']).default('fa3'),
      /** The fp32 "cold" path (HF eager, one softmax over every key): auto = when some piece has context or a tolerance is `{floor: k}`. */
      cold: z.enum(['auto', 'on', 'off']).default('auto'),
      /** Attention without the score tensor (webgpu: fused WGSL kernels): auto = where the unfused scores would not fit; fused; unfused. */
      attention: z.enum(['auto', 'fused', 'unfused']).default('auto'),
      /** Query tokens whose logits rows every path records (index within each piece; negative from its end); absent: all, unfused only. */
      logits_rows: z.array(z.number().int()).min(1).optional(),
    })
    .default({
      block_size: 16,
      decode_threshold: 1,
      context_chunk: 65_536,
      kv_splits: 1,
      prefill_kernel: 'fa3',
      cold: 'auto',
      attention: 'auto',
    }),
  requests: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only'),
        /** Leading token ids; the rest are drawn from the weight seed. */
        ids: z.array(z.number().int().nonnegative()).optional(),
        start_step: z.number().int().nonnegative().default(0),
        /** RoPE position of the request's first token. */
        position_offset: z.number().int().nonnegative().default(0),
        steps: z
          .array(
            z.strictObject({
              prefill: positiveInt.optional(),
              /** Split the prefill over engine steps of this many tokens (chunked prefill). */
              chunk: positiveInt.optional(),
              decode: positiveInt.optional(),
              /** A prefix-cache hit: this many tokens' latent rows are already cached. */
              cached: positiveInt.optional(),
            }),
          )
          .min(1),
      }),
    )
    .min(1)
    .optional(),
  /** Storage dtype of activations and weights, as vLLM's --dtype; products accumulate in fp32 either way. */
  dtype: z.enum(ACTIVATION_DTYPES).default('float32'),
  /** As vLLM's --kv-cache-dtype: auto keeps the latent cache in dtype; fp8_e4m3 quantizes it. */
  kv_cache_dtype: z.enum(KV_CACHE_DTYPES).default('auto'),
  /** Scales of an fp8 cache: {k_scale: x} one per-tensor scale (default 1.0), or per-token (DeepSeek-V3.2 fp8_ds_mla tiles). */
  kv_cache_scale: z.union([z.literal('per-token'), z.strictObject({ k_scale: z.number().positive() })]).optional(),
  /** Where each path rounds: a kernel preset (vllm-triton-mla, vllm-flashmla for mqa; vllm-fa3-prefill for mha) or {mha:, mqa:}. */
  rounding: z.union([z.enum(KERNEL_PRESETS), z.strictObject({ mha: pathRounding.optional(), mqa: pathRounding.optional() })]).optional(),
  reference: z.enum(['auto', 'on', 'off']).default('auto'),
  /**
   * Stage replay (teacher forcing) of divergent records: auto = the first divergent piece and the first record of each later one, capped;
   * on = every one.
   */
  replay: z.enum(['auto', 'on', 'off']).default('auto'),
  cases: z
    .array(caseSchema)
    .min(1)
    .default([{ name: 'full' }]),
  faults: z
    .array(
      z.strictObject({
        path: z.enum(['mha', 'mqa']),
        fault: z.enum(FAULT_NAMES),
      }),
    )
    .default([]),
  tolerances: z
    .strictObject({
      /** A tolerances file (the ratchet, `--write-tolerances`), relative to the scenario file; inline stages override it. */
      file: z.string().min(1).optional(),
      default: tolerance.optional(),
      stages: z.partialRecord(z.enum(STAGE_NAMES as [string, ...string[]]), tolerance).optional(),
    })
    .default({}),
  external: externalSchema.optional(),
  trace: traceSchema.optional(),
  expect: z
    .strictObject({
      outcome: z.enum(['agree', 'diverge']),
      /** With compare_weights: the outcome across the two sources, the first weight that differs, and where each path first moves. */
      weights: z
        .strictObject({
          outcome: z.enum(['agree', 'diverge']),
          first_divergence: z.enum(WEIGHT_NAMES as unknown as [string, ...string[]]).optional(),
          mha: z.enum(STAGE_NAMES as [string, ...string[]]).optional(),
          mqa: z.enum(STAGE_NAMES as [string, ...string[]]).optional(),
        })
        .optional(),
      first_divergence: z.enum(STAGE_NAMES as [string, ...string[]]).optional(),
      culprit: z.enum(CULPRITS as unknown as [string, ...string[]]).optional(),
      step: z.number().int().nonnegative().optional(),
      request: z.string().optional(),
    })
    .optional(),
});

export type ScenarioFile = z.infer<typeof scenarioSchema>;
