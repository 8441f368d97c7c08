import { z } from 'zod';
import { FAULT_NAMES } from '../../core/faults/catalogue';
import { STAGE_NAMES } from '../../trace/stages';
import { ROPE_ANGLES } from '../../trace/precision';
import { WEIGHT_NAMES } from '../../core/weights/records';
import { ACTIVATION_DTYPES, KERNEL_PRESETS, KV_CACHE_DTYPES, ROUND_POINTS } from '../../core/precision/plan';
import { CULPRITS } from './scenario';
import { engineItemSchema, externalSchema, modelSchema, traceSchema, weightsSchema } from './schema-sources';
import { promptSchema, requestsSchema, scheduleSchema } from './schema-schedule';
import { FIELD_MAX } from './field-limits';

/**
 * The scenario file format (YAML), version 1. zod gives typed parsing and issues with paths;
 * load.ts maps each path back to a line of the file.
 */
const positiveInt = z.number().int().positive();
/** `{rel: x}` a relative-L2 bound, or `{floor: k}` k × the record's noise floor; one of the two (checked in resolve). */
const tolerance = z.strictObject({ rel: z.number().nonnegative().optional(), floor: z.number().positive().optional() });

/** A path's rounding points: a kernel preset, or the points listed. */
const pathRounding = z.union([z.enum(KERNEL_PRESETS), z.array(z.enum(ROUND_POINTS))]);

const caseSchema = z.strictObject({
  name: z
    .string()
    .max(FIELD_MAX.name)
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only'),
  /** A contiguous run of heads. */
  heads: z.strictObject({ start: z.number().int().nonnegative(), count: positiveInt }).optional(),
  /** Tensor-parallel rank: heads [rank·N/size, (rank+1)·N/size). */
  tp: z.strictObject({ size: positiveInt, rank: z.number().int().nonnegative() }).optional(),
});

export const scenarioSchema = z.strictObject({
  version: z.literal(1).default(1),
  name: z.string().min(1).max(FIELD_MAX.name),
  description: z.string().max(FIELD_MAX.description).optional(),
  model: modelSchema,
  weights: weightsSchema.default({ synthetic: { seed: 0 } }),
  /** A second source of the same layer: every weight and every activation compared across the two. */
  compare_weights: weightsSchema.optional(),
  /** One request prefilled in one step; or give `requests:` for a serving schedule. */
  prompt: promptSchema,
  /** Engine behaviour for schedules (all optional). */
  schedule: scheduleSchema,
  requests: requestsSchema,
  /** Storage dtype of activations and weights, as vLLM's --dtype; products accumulate in fp32 either way. */
  dtype: z.enum(ACTIVATION_DTYPES).default('float32'),
  /** As vLLM's --kv-cache-dtype: auto keeps the latent cache in dtype; fp8_e4m3 quantizes it. */
  kv_cache_dtype: z.enum(KV_CACHE_DTYPES).default('auto'),
  /** Scales of an fp8 cache: {k_scale: x} one per-tensor scale (default 1.0), or per-token (DeepSeek-V3.2 fp8_ds_mla tiles). */
  kv_cache_scale: z.union([z.literal('per-token'), z.strictObject({ k_scale: z.number().positive() })]).optional(),
  /** Where each path rounds: a kernel preset (vllm-triton-mla, vllm-flashmla for mqa; vllm-fa3-prefill for mha) or {mha:, mqa:}. */
  rounding: z.union([z.enum(KERNEL_PRESETS), z.strictObject({ mha: pathRounding.optional(), mqa: pathRounding.optional() })]).optional(),
  /**
   * How the fp32 paths compute RoPE angles: float64 (exact), or float32 as engines do (vLLM's cos_sin_cache, transformers'
   * rotary embedding). The float64 reference always computes them exactly.
   */
  rope_angles: z.enum(ROPE_ANGLES).default('float64'),
  reference: z.enum(['auto', 'on', 'off']).default('auto'),
  /**
   * Stage replay (teacher forcing) of divergent records: auto = the first divergent piece and the first record of each later one, capped;
   * on = every one.
   */
  replay: z.enum(['auto', 'on', 'off']).default('auto'),
  cases: z
    .array(caseSchema)
    .min(1)
    .max(FIELD_MAX.cases)
    .default([{ name: 'full' }]),
  faults: z
    .array(
      z.strictObject({
        path: z.enum(['mha', 'mqa']),
        fault: z.enum(FAULT_NAMES),
      }),
    )
    .max(FIELD_MAX.faults)
    .default([]),
  tolerances: z
    .strictObject({
      /** A tolerances file (the ratchet, `--write-tolerances`), relative to the scenario file; inline stages override it. */
      file: z.string().min(1).max(FIELD_MAX.path).optional(),
      default: tolerance.optional(),
      stages: z.partialRecord(z.enum(STAGE_NAMES as [string, ...string[]]), tolerance).optional(),
    })
    .default({}),
  external: externalSchema.optional(),
  trace: traceSchema.optional(),
  /** Real engines run as the third-party path (one per scenario for now). */
  engines: z.array(engineItemSchema).min(1).max(1).optional(),
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
      request: z.string().max(FIELD_MAX.name).optional(),
    })
    .optional(),
});

export type ScenarioFile = z.infer<typeof scenarioSchema>;
