/** The scenario file's serving schedule: the one-step prompt, the engine's schedule knobs and the requests of a multi-step schedule. */
import { z } from 'zod';
import { FIELD_MAX } from './field-limits';

const positiveInt = z.number().int().positive();

/** One request prefilled in one step; or give `requests:` for a serving schedule. */
export const promptSchema = z
  .strictObject({
    /** The prompt: tokenized with weights.tokenizer: or the checkpoint's vocabulary when no ids are given, else a label for the ids. */
    text: z.string().max(FIELD_MAX.text).optional(),
    ids: z.array(z.number().int().nonnegative()).min(1).max(FIELD_MAX.ids).optional(),
    /** Instead of ids: this many token ids drawn from the weight seed (long-context runs). */
    length: positiveInt.optional(),
    /** Absolute position of the first token (default 0). */
    start_position: z.number().int().nonnegative().max(FIELD_MAX.position).default(0),
    /** With text: a BOS in front as the tokenizer says (auto), always (true) or never added (false). */
    bos: z.union([z.enum(['auto', 'true', 'false']), z.boolean()]).optional(),
  })
  .optional();

/** Engine behaviour for schedules (all optional). */
export const scheduleSchema = z
  .strictObject({
    /** Slots per block of the paged latent cache. */
    block_size: positiveInt.max(FIELD_MAX.blockSize).default(16),
    /** vLLM reorder_batch_threshold: pieces of at most this many tokens take the decode (MQA) path; Triton MLA 1, FlashMLA 128. */
    decode_threshold: positiveInt.max(FIELD_MAX.tokens).default(1),
    /** Tokens per context chunk gathered into the MHA workspace (vLLM max_context_chunk). */
    context_chunk: positiveInt.max(FIELD_MAX.position).default(65_536),
    /** Triton MLA num_kv_splits for the MQA path. */
    kv_splits: positiveInt.max(FIELD_MAX.kvSplits).default(1),
    /** Prefill kernel: fa3 reports −inf LSE for an empty context chunk, fa2 +inf. */
    prefill_kernel: z.enum(['fa3', 'fa2']).default('fa3'),
    /** The fp32 "cold" path (HF eager, one softmax over every key): auto = when some piece has context or a tolerance is `{floor: k}`. */
    cold: z.enum(['auto', 'on', 'off']).default('auto'),
    /** Attention without the score tensor (webgpu: fused WGSL kernels): auto = where the unfused scores would not fit; fused; unfused. */
    attention: z.enum(['auto', 'fused', 'unfused']).default('auto'),
    /** Query tokens whose logits rows every path records (index within each piece; negative from its end); absent: all, unfused only. */
    logits_rows: z.array(z.number().int().min(-FIELD_MAX.tokens).max(FIELD_MAX.tokens)).min(1).max(FIELD_MAX.logitsRows).optional(),
  })
  .default({
    block_size: 16,
    decode_threshold: 1,
    context_chunk: 65_536,
    kv_splits: 1,
    prefill_kernel: 'fa3',
    cold: 'auto',
    attention: 'auto',
  });

/** Requests of a serving schedule, each a run of prefill / decode steps. */
export const requestsSchema = z
  .array(
    z.strictObject({
      name: z
        .string()
        .max(FIELD_MAX.name)
        .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "_", "." and "-" only'),
      /** Leading token ids; the rest are drawn from the weight seed. */
      ids: z.array(z.number().int().nonnegative()).max(FIELD_MAX.ids).optional(),
      start_step: z.number().int().nonnegative().max(FIELD_MAX.tokens).default(0),
      /** RoPE position of the request's first token. */
      position_offset: z.number().int().nonnegative().max(FIELD_MAX.position).default(0),
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
        .min(1)
        .max(FIELD_MAX.steps),
    }),
  )
  .min(1)
  .max(FIELD_MAX.requests)
  .optional();
