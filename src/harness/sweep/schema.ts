import { z } from 'zod';
import { FAULT_NAMES } from '../../core/faults/catalogue';
import { DEVICE_REQUESTS } from '../../devices/runtime';
import { STAGE_NAMES } from '../../trace/stages';
import { CULPRITS } from '../scenario/scenario';

/**
 * The sweep matrix file (YAML), format mla-diff/sweep version 1: a base scenario and axes whose
 * cross product gives the points. The base is validated per point, as a scenario (schema.ts).
 */
const positiveInt = z.number().int().positive();
/** Values of one axis (the points, their product, are bounded in matrix.ts). */
const AXIS_MAX = 1024;

/** What a point must show; without it a fault's is derived (diverge where it enters, culprit its path), a clean point's is agree. */
const expectSchema = z.strictObject({
  outcome: z.enum(['agree', 'diverge']),
  first_divergence: z.enum(STAGE_NAMES as [string, ...string[]]).optional(),
  culprit: z.enum(CULPRITS as unknown as [string, ...string[]]).optional(),
});

export const faultEntrySchema = z.strictObject({
  path: z.enum(['mha', 'mqa']),
  fault: z.enum(FAULT_NAMES),
  expect: expectSchema.optional(),
});

/** The axes, in the order they nest: the first varies slowest, the last fastest. */
export const AXIS_NAMES = ['seed', 'tokens', 'heads', 'tp', 'chunk', 'device', 'faults'] as const;
export type AxisName = (typeof AXIS_NAMES)[number];

export const axesSchema = z.strictObject({
  /** weights.synthetic.seed */
  seed: z.array(z.number().int().nonnegative()).min(1).max(AXIS_MAX).optional(),
  /** prompt.length (or the chunked request's prefill) */
  tokens: z.array(positiveInt).min(1).max(AXIS_MAX).optional(),
  /** model.num_attention_heads */
  heads: z.array(positiveInt).min(1).max(AXIS_MAX).optional(),
  /** one case per value: tensor-parallel rank `rank` of `size` */
  tp: z
    .array(z.strictObject({ size: positiveInt, rank: z.number().int().nonnegative() }))
    .min(1)
    .max(AXIS_MAX)
    .optional(),
  /** a chunked prefill: one request with steps [{prefill: T, chunk: c}]; none = the plain prompt */
  chunk: z
    .array(z.union([z.literal('none'), positiveInt]))
    .min(1)
    .max(AXIS_MAX)
    .optional(),
  device: z
    .array(z.enum(DEVICE_REQUESTS as unknown as [string, ...string[]]))
    .min(1)
    .max(AXIS_MAX)
    .optional(),
  /** none, or a fault of the catalogue planted in a path */
  faults: z
    .array(z.union([z.literal('none'), faultEntrySchema]))
    .min(1)
    .max(AXIS_MAX)
    .optional(),
});

export const matrixSchema = z.strictObject({
  format: z.literal('mla-diff/sweep'),
  version: z.literal(1),
  name: z
    .string()
    .max(256)
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only'),
  description: z.string().max(10_000).optional(),
  /** The base scenario, inline (a scenario mapping) … */
  base: z.record(z.string(), z.unknown()).optional(),
  /** … or a scenario file, relative to the matrix file. */
  base_file: z.string().min(1).max(AXIS_MAX).optional(),
  axes: axesSchema.default({}),
});

export type MatrixFile = z.infer<typeof matrixSchema>;
export type FaultEntry = z.infer<typeof faultEntrySchema>;
export type ExpectEntry = z.infer<typeof expectSchema>;
