import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PieceInput } from '../../paths/backend';
import { softmaxScale } from '../../core/model/config';
import { ropeTables } from '../../core/model/rope';
import type { StageName } from '../../trace/stages';
import { STAGE_NAMES, STAGES } from '../../trace/stages';
import { writeSafetensors } from '../../formats/safetensors';
import type { TensorToWrite } from '../../formats/safetensors';
import type { HeadSlice, WeightSource } from '../../core/weights/layer';
import { LINEAR_NAMES, NORM_NAMES, sliceRanges, slicedConfig } from '../../core/weights/layer';

export const REQUEST_FORMAT = 'mla-diff/external-request';
export const RESPONSE_FORMAT = 'mla-diff/external-response';
/** Version of the exchange protocol (docs/external-backends.md). */
export const PROTOCOL_VERSION = 1;

/** What one case asks of an external backend. */
export interface ExternalJob {
  scenario: string;
  case: string;
  source: WeightSource;
  heads: HeadSlice;
  pieces: readonly PieceInput[];
  stages: readonly StageName[] | null;
  /** The MQA path's KV splits (Triton MLA num_kv_splits): the last axis of split_lse. Absent: 1. */
  kvSplits?: number;
}

/** The case's head slice of the layer in Hugging Face names, float32 [out, in]. */
function weightTensors(source: WeightSource, heads: HeadSlice): TensorToWrite[] {
  const out: TensorToWrite[] = NORM_NAMES.map((n) => ({
    name: `${n}.weight`,
    dtype: 'F32',
    shape: [source.norm(n).length],
    data: source.norm(n),
  }));
  for (const name of LINEAR_NAMES) {
    const { rows, cols } = sliceRanges(source.config, name, heads);
    const data = new Float32Array((rows[1] - rows[0]) * (cols[1] - cols[0])); // [out, in] of the slice
    source.block(name, rows, cols, 'out_in', data);
    out.push({ name: `${name}.weight`, dtype: 'F32', shape: [rows[1] - rows[0], cols[1] - cols[0]], data });
  }
  return out;
}

/** Per piece: embeddings [T, H], positions [T], rope_cos / rope_sin [T, R/2] (mscale folded in). */
function inputTensors(job: ExternalJob): TensorToWrite[] {
  const c = job.source.config;
  return job.pieces.flatMap((p): TensorToWrite[] => {
    const key = `${p.step}/${p.request}`;
    const T = p.ids.length;
    const rope = ropeTables(c, p.positions);
    return [
      { name: `${key}/embeddings`, dtype: 'F32', shape: [T, c.hidden_size], data: p.embeddings },
      { name: `${key}/positions`, dtype: 'I32', shape: [T], data: Int32Array.from(p.positions) },
      { name: `${key}/rope_cos`, dtype: 'F32', shape: [T, rope.half], data: Float32Array.from(rope.cos) },
      { name: `${key}/rope_sin`, dtype: 'F32', shape: [T, rope.half], data: Float32Array.from(rope.sin) },
    ];
  });
}

/** The request as JSON (request.json), every field of protocol version 1. */
export function requestJson(job: ExternalJob): Record<string, unknown> {
  const full = job.source.config;
  const c = slicedConfig(full, job.heads);
  const stages = job.stages ?? STAGE_NAMES;
  return {
    format: REQUEST_FORMAT,
    version: PROTOCOL_VERSION,
    scenario: job.scenario,
    case: job.case,
    config: c,
    heads: { start: job.heads.start, count: job.heads.count, total: full.num_attention_heads },
    softmax_scale: softmaxScale(c),
    rope: { style: c.rope_interleave ? 'gptj' : 'neox', mscale: ropeTables(c, []).mscale },
    weights: 'weights.safetensors',
    inputs: 'inputs.safetensors',
    pieces: job.pieces.map((p) => ({
      step: p.step,
      request: p.request,
      kind: p.kind,
      route: p.route,
      start: p.start,
      count: p.ids.length,
      positions: [...p.positions],
      chunks: p.chunks.map(([a, b]) => [a, b]),
    })),
    kv_splits: job.kvSplits ?? 1,
    stages,
    layouts: Object.fromEntries(stages.map((s) => [s, STAGES[s].layout])),
  };
}

/** Writes request.json, weights.safetensors and inputs.safetensors into `dir`. */
export function writeRequest(dir: string, job: ExternalJob): void {
  writeSafetensors(join(dir, 'weights.safetensors'), weightTensors(job.source, job.heads), { format: 'mla-diff/external-weights' });
  writeSafetensors(join(dir, 'inputs.safetensors'), inputTensors(job), { format: 'mla-diff/external-inputs' });
  writeFileSync(join(dir, 'request.json'), `${JSON.stringify(requestJson(job), null, 2)}\n`);
}
