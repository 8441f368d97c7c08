import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { fieldPath, MlaDiffError } from '../../errors';
import type { PieceTrace, Recording } from '../../core/probes/recorder';
import type { ScalarName, ScalarValue } from '../../trace/stages';
import type { ImportContext, NamedStats } from './records';
import { importRecords } from './records';
import { PROTOCOL_VERSION, RESPONSE_FORMAT } from './request';
import { readNamedTensors } from './tensors-file';
import { readJsonInput } from './json-input';

/** response.json holds names, layouts, scalars and statistics, never tensors: far below this. */
const MAX_RESPONSE_BYTES = 64 * 2 ** 20;

const SCALARS = [
  'softmax_scale',
  'has_context',
  'num_tokens',
  'num_context_tokens',
  'route',
  'context_chunks',
  'kv_splits',
  'empty_lse',
  'lse_base',
  'rope_style',
  'causal',
] as const satisfies readonly ScalarName[];

/** A stage or request name is a short identifier; a longer one is refused before it reaches a message. */
const MAX_NAME_CHARS = 1024;

/** One stage known by its statistics (response.json `stats[]`, a line of a jsonl dump). */
export const statsEntrySchema = z.object({
  step: z.number().int().nonnegative().optional(),
  request: z.string().max(MAX_NAME_CHARS).optional(),
  stage: z.string().min(1).max(MAX_NAME_CHARS),
  chunk: z.number().int().nonnegative().optional(),
  norm: z.number().nonnegative(),
  max_abs: z.number().nonnegative().optional(),
  nan: z.number().int().nonnegative().optional(),
  inf: z.number().int().nonnegative().optional(),
  shape: z.array(z.number().int().nonnegative()).max(16).optional(),
});

const responseSchema = z.object({
  format: z.literal(RESPONSE_FORMAT),
  version: z.literal(PROTOCOL_VERSION),
  name: z.string().optional(),
  precision: z.string().optional(),
  device: z.string().optional(),
  layouts: z.record(z.string(), z.string()).default({}),
  /** Stages written after the causal mask (docs/external-backends.md): only logits has a pre-mask definition to differ from. */
  masked: z.array(z.literal('logits')).default([]),
  stats: z.array(statsEntrySchema).default([]),
  scalars: z.record(z.string(), z.partialRecord(z.enum(SCALARS), z.union([z.number(), z.string(), z.boolean()]))).default({}),
  seconds: z.number().optional(),
});

export interface ExternalResponse {
  recording: Recording;
  /** The layouts the stages were read in: the scenario's, then response.json's. */
  layouts: Record<string, string>;
  name?: string;
  precision?: string;
  device?: string;
  seconds?: number;
}

/** First zod issue as one message: the field path and what was wrong. */
export const zodMessage = (e: z.ZodError) => {
  const i = e.issues[0]!;
  // zod says "received undefined" of a missing field: a message never says undefined
  const what = i.message.replace(/^Invalid input: /, '').replace(/^expected (.+), received undefined$/, 'missing (expected $1)');
  return `${fieldPath(i.path as PropertyKey[]) || '(top level)'}: ${what}`;
};

/** Reads D/out/response.json (required) and D/out/stages.safetensors (optional) into path `external`. */
export function readResponse(out: string, ctx: Omit<ImportContext, 'file'>): ExternalResponse {
  const file = join(out, 'response.json');
  if (!existsSync(file))
    throw new MlaDiffError(
      'external-bad-response',
      'the backend wrote no response.json',
      { file },
      'an external backend must write $MLA_DIFF_OUT/response.json (docs/external-backends.md)',
    );
  const json = readJsonInput(file, { what: 'a response.json', maxBytes: MAX_RESPONSE_BYTES, code: 'external-bad-response' });
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw new MlaDiffError(
      'external-bad-response',
      zodMessage(parsed.error),
      { file },
      `a response starts {"format": "${RESPONSE_FORMAT}", "version": ${PROTOCOL_VERSION}, ...}`,
    );
  }
  const r = parsed.data;
  const scalars: PieceTrace[] = Object.entries(r.scalars).map(([key, v]) => {
    const m = /^(\d+)\/(.*)$/s.exec(key);
    if (!m)
      throw new MlaDiffError('external-bad-response', `scalars key "${key.slice(0, 80)}" is not {step}/{request}`, {
        file,
        field: `scalars.${key.slice(0, 80)}`,
      });
    return { step: Number(m[1]), request: m[2]!, scalars: v as Partial<Record<ScalarName, ScalarValue>> };
  });
  const stagesFile = join(out, 'stages.safetensors');
  const tensors = existsSync(stagesFile) ? readNamedTensors(stagesFile, 'external-bad-output') : [];
  const layouts = { ...ctx.layouts, ...r.layouts };
  const recording = importRecords({ ...ctx, file: stagesFile, layouts, masked: r.masked }, tensors, r.stats as NamedStats[], scalars);
  return { recording, layouts, name: r.name, precision: r.precision, device: r.device, seconds: r.seconds };
}
