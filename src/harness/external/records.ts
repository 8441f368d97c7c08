import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import type { Captured, PieceTrace, Recording, StageRecord } from '../../core/probes/recorder';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import type { StageDef, StageName } from '../../trace/stages';
import { isStageName, STAGES } from '../../trace/stages';
import { hostStats } from '../../core/probes/stats';
import { toCanonical } from './layout-map';
import type { ShapePiece } from './shapes';
import { groupedAxes, recordDims, stageShape } from './shapes';

/** A piece of the schedule as the importer sees it. */
export interface ImportPiece extends ShapePiece {
  step: number;
  request: string;
  kind: 'prefill' | 'decode' | 'cached';
}

/** What a record is checked against: the case's sliced config, its schedule, the KV split count. */
export interface ImportContext {
  config: MlaConfig;
  pieces: readonly ImportPiece[];
  kvSplits: number;
  /** The file named in errors (stages.safetensors, the dump). */
  file: string;
  /** Scenario layouts, then the backend's own (the latter win). */
  layouts: Record<string, string>;
  /** Backend names → stage names (whole tensor name or its stage part). */
  names: Record<string, string>;
}

export interface NamedTensor {
  name: string;
  data: Float32Array | Float64Array;
  shape: number[];
}
/** A stage known only by its statistics (a backend that prints norms, a jsonl dump). */
export interface NamedStats {
  step?: number;
  request?: string;
  stage: string;
  chunk?: number;
  norm: number;
  max_abs?: number;
  nan?: number;
  inf?: number;
  shape?: number[];
}

type At = { piece: ImportPiece; stage: StageName; chunk?: number };
const bad = (ctx: ImportContext, field: string, message: string, hint?: string) =>
  new MlaDiffError('external-bad-output', message, { file: ctx.file, field }, hint);

const attending = (ctx: ImportContext) => ctx.pieces.filter((p) => p.kind !== 'cached');
const naming = (ctx: ImportContext) => {
  const one = attending(ctx);
  return (
    `names are {step}/{request}/{stage}[/{chunk}]${one.length === 1 ? ' or a bare stage name' : ''}; ` +
    `pieces: ${one.map((p) => `${p.step}/${p.request}`).join(', ')}`
  );
};

/** Resolves a record's place in the schedule; every failure is external-bad-output naming it. */
function locate(ctx: ImportContext, field: string, stageName: string, step?: number, request?: string, chunk?: number): At {
  const stage = ctx.names[stageName] ?? stageName;
  if (!isStageName(stage))
    throw bad(ctx, field, `unknown stage "${stageName}"`, `stages: mla-diff stages; map other names with names: {${stageName}: <stage>}`);
  const one = attending(ctx);
  if (step === undefined && request === undefined && one.length !== 1)
    throw bad(ctx, field, `a bare stage name needs a schedule of exactly one attending piece (it has ${one.length})`, naming(ctx));
  const piece = step === undefined && request === undefined ? one[0] : one.find((p) => p.step === step && p.request === request);
  if (!piece) throw bad(ctx, field, `step ${step} request ${request} is not an attending piece of the schedule`, naming(ctx));
  const chunked = (STAGES[stage] as StageDef).chunked === true;
  if (chunked !== (chunk !== undefined))
    throw bad(
      ctx,
      field,
      chunked
        ? `${stage} is recorded per context chunk: name it ${piece.step}/${piece.request}/${stage}/{chunk}`
        : `${stage} has no chunks`,
    );
  if (chunk !== undefined && !(Number.isInteger(chunk) && chunk >= 0 && chunk < piece.chunks.length))
    throw bad(ctx, field, `chunk ${chunk} of ${piece.step}/${piece.request}: the piece has ${piece.chunks.length} context chunk(s)`);
  return { piece, stage, ...(chunk === undefined ? {} : { chunk }) };
}

/** `{step}/{request}/{stage}[/{chunk}]` or a bare stage name, after the whole-name map. */
function parseName(ctx: ImportContext, raw: string): At {
  const name = ctx.names[raw] ?? raw;
  const parts = name.split('/');
  if (parts.length === 1) return locate(ctx, raw, parts[0]!);
  if (parts.length !== 3 && parts.length !== 4) throw bad(ctx, raw, `cannot read tensor name "${raw}"`, naming(ctx));
  const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : NaN);
  return locate(ctx, raw, parts[2]!, num(parts[0]!), parts[1]!, parts[3] === undefined ? undefined : num(parts[3]));
}

const where = (a: At) => ({
  step: a.piece.step,
  request: a.piece.request,
  stage: a.stage,
  ...(a.chunk === undefined ? {} : { chunk: a.chunk }),
});

/** Named tensors and statistics → a Recording of path `external`, values in canonical layout. */
export function importRecords(
  ctx: ImportContext,
  tensors: readonly NamedTensor[],
  stats: readonly NamedStats[],
  scalars: PieceTrace[] = [],
): Recording {
  const records: StageRecord[] = [];
  const captured = new Map<string, Captured>();
  const add = (r: StageRecord, field: string) => {
    if (records.some((x) => recordKey(x) === recordKey(r))) throw bad(ctx, field, `${recordKey(r)} is given twice`);
    records.push(r);
  };
  for (const t of tensors) {
    const at = parseName(ctx, t.name);
    const dims = recordDims(ctx.config, at.piece, ctx.kvSplits, at.chunk);
    const canonical = STAGES[at.stage].layout;
    const mapped = toCanonical(
      t.data,
      t.shape,
      ctx.layouts[at.stage] ?? canonical,
      canonical,
      stageShape(at.stage, dims),
      groupedAxes(dims),
    );
    if (typeof mapped === 'string') throw bad(ctx, t.name, mapped, 'declare the layout the backend writes: layouts: {<stage>: "t (h v)"}');
    const w = where(at);
    add(
      { ...w, stats: hostStats(mapped.data, mapped.shape, mapped.data instanceof Float64Array ? 'float64' : 'float32', canonical) },
      t.name,
    );
    captured.set(recordKey(w), { where: 'host', data: mapped.data, shape: mapped.shape, layout: canonical });
  }
  for (const [i, s] of stats.entries()) {
    const field = `stats[${i}] ${s.step ?? ''}/${s.request ?? ''}/${s.stage}`;
    const at = locate(ctx, field, s.stage, s.step, s.request, s.chunk);
    const shape = stageShape(at.stage, recordDims(ctx.config, at.piece, ctx.kvSplits, at.chunk));
    const size = shape.reduce((a, b) => a * b, 1);
    if (s.shape && s.shape.reduce((a, b) => a * b, 1) !== size)
      throw bad(
        ctx,
        field,
        `shape [${s.shape.join(', ')}] has ${s.shape.reduce((a, b) => a * b, 1)} elements; ${at.stage} here is [${shape.join(', ')}]`,
      );
    const finite = size - (s.nan ?? 0) - (s.inf ?? 0);
    add(
      {
        ...where(at),
        statsOnly: true,
        stats: {
          shape,
          dtype: 'float32',
          layout: STAGES[at.stage].layout,
          size,
          l2: s.norm,
          rms: finite > 0 ? s.norm / Math.sqrt(finite) : 0,
          mean: NaN,
          maxAbs: s.max_abs ?? NaN,
          maxAbsAt: [],
          nanCount: s.nan ?? 0,
          infCount: s.inf ?? 0,
        },
      },
      field,
    );
  }
  if (!records.length)
    throw bad(ctx, '', 'no stage tensors and no stage statistics', 'write out/stages.safetensors or response.json "stats"');
  const order = executionOrder(ctx.pieces);
  records.sort(order);
  const pieces = ctx.pieces
    .filter((p) => p.kind !== 'cached' && records.some((r) => r.step === p.step && r.request === p.request))
    .map((p) => scalars.find((x) => x.step === p.step && x.request === p.request) ?? { step: p.step, request: p.request, scalars: {} });
  return {
    trace: {
      path: 'external',
      precision: records.some((r) => r.stats.dtype === 'float32') ? 'float32' : 'float64',
      stages: records,
      pieces,
    },
    captured,
  };
}
