import { z } from 'zod';
import { FAULT_NAMES } from '../faults/catalogue';
import { PRESET_NAMES } from '../model/presets';
import { STAGE_NAMES } from '../probes/stages';

/**
 * The scenario file format (YAML), version 1. zod gives typed parsing and issues with paths;
 * load.ts maps each path back to a line of the file.
 */
const positiveInt = z.number().int().positive();
const tolerance = z.strictObject({ rel: z.number().nonnegative() });

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
  preset: z.enum(PRESET_NAMES as [string, ...string[]]),
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
  weights: z.strictObject({
    synthetic: z.strictObject({ seed: z.number().int().nonnegative() }),
  }).default({ synthetic: { seed: 0 } }),
  prompt: z.strictObject({
    /** A label: the text the ids stand for. */
    text: z.string().optional(),
    ids: z.array(z.number().int().nonnegative()).min(1).optional(),
    /** Instead of ids: this many token ids drawn from the weight seed (long-context runs). */
    length: positiveInt.optional(),
    /** Absolute position of the first token (default 0). */
    start_position: z.number().int().nonnegative().default(0),
  }),
  reference: z.enum(['auto', 'on', 'off']).default('auto'),
  cases: z.array(caseSchema).min(1).default([{ name: 'full' }]),
  faults: z.array(z.strictObject({
    path: z.enum(['mha', 'mqa']),
    fault: z.enum(FAULT_NAMES as [string, ...string[]]),
  })).default([]),
  tolerances: z.strictObject({
    default: tolerance.optional(),
    stages: z.partialRecord(z.enum(STAGE_NAMES as [string, ...string[]]), tolerance).optional(),
  }).default({}),
  expect: z.strictObject({
    outcome: z.enum(['agree', 'diverge']),
    first_divergence: z.enum(STAGE_NAMES as [string, ...string[]]).optional(),
    culprit: z.enum(['mha', 'mqa', 'both', 'shared', 'unknown']).optional(),
  }).optional(),
});

export type ScenarioFile = z.infer<typeof scenarioSchema>;
