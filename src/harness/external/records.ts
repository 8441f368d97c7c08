import type { Captured, PieceTrace, Recording, StageRecord } from '../../core/probes/recorder';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import { STAGES } from '../../trace/stages';
import { hostStats } from '../../core/probes/stats';
import { toCanonical } from './layout-map';
import type { At, ImportContext } from './locate';
import { bad, locate, parseName, where } from './locate';
import { keyCountError, sizeFits, tensorFits } from './key-count';
import { looksMasked, zeroMasked } from './masked-logits';
import { groupedAxes, recordDims, stageShape } from './shapes';
import type { WeightCopy } from './weights-once';
import { checkWeightCopy, weightHome } from './weights-once';

export type { At, ImportContext, ImportPiece } from './locate';

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

const pieceName = (a: At) => `${a.piece.step}/${a.piece.request}`;

/** A tensor in canonical layout, its masked logits zeroed (declared or detected); the shape errors name the key-count reading. */
function canonicalValues(
  ctx: ImportContext,
  t: NamedTensor,
  at: At,
): { data: Float32Array | Float64Array; shape: number[]; masked: boolean } {
  const dims = recordDims(ctx.config, at.piece, ctx.kvSplits, at.chunk);
  const canonical = STAGES[at.stage].layout;
  const given = Object.hasOwn(ctx.layouts, at.stage) ? ctx.layouts[at.stage] : undefined;
  const declared = typeof given === 'string' ? given : canonical;
  const expected = stageShape(at.stage, dims);
  const mapped = toCanonical(t.data, t.shape, declared, canonical, expected, groupedAxes(dims));
  if (typeof mapped === 'string')
    throw (
      keyCountError(ctx, t.name, at, tensorFits(at, t.shape, declared), expected) ??
      bad(ctx, t.name, mapped, 'declare the layout the backend writes: layouts: {<stage>: "t (h v)"}')
    );
  const masked = at.stage === 'logits' && (ctx.masked?.includes('logits') || looksMasked(mapped.data, mapped.shape));
  return masked ? { data: zeroMasked(mapped.data, mapped.shape), shape: mapped.shape, masked } : { ...mapped, masked };
}

/** Named tensors and statistics → a Recording of path `external`, values in canonical layout. */
export function importRecords(
  ctx: ImportContext,
  tensors: readonly NamedTensor[],
  stats: readonly NamedStats[],
  scalars: PieceTrace[] = [],
): Recording {
  const records: StageRecord[] = [];
  const captured = new Map<string, Captured>();
  const weights = new Map<string, WeightCopy>();
  /** False for a weight stage given again with the same values: nothing to add. */
  const fresh = (r: StageRecord, field: string, named: At, values: ArrayLike<number>) => {
    const key = recordKey(r);
    const first = weights.get(key);
    if (first) checkWeightCopy(ctx, field, r.stage, first, { named: pieceName(named), values });
    else if (records.some((x) => recordKey(x) === key)) throw bad(ctx, field, `${key} is given twice`);
    if (STAGES[r.stage].kind === 'weight') weights.set(key, first ?? { named: pieceName(named), values });
    return !first;
  };
  for (const t of tensors) {
    const named = parseName(ctx, t.name);
    const at = weightHome(ctx, named);
    const v = canonicalValues(ctx, t, at);
    const canonical = STAGES[at.stage].layout;
    const r: StageRecord = {
      ...where(at),
      stats: hostStats(v.data, v.shape, v.data instanceof Float64Array ? 'float64' : 'float32', canonical),
      ...(v.masked ? { masked: true as const } : {}),
    };
    if (!fresh(r, t.name, named, v.data)) continue;
    records.push(r);
    captured.set(recordKey(r), { where: 'host', data: v.data, shape: v.shape, layout: canonical, ...(v.masked ? { masked: true } : {}) });
  }
  for (const [i, s] of stats.entries()) {
    const field = `stats[${i}] ${s.step ?? ''}/${s.request ?? ''}/${s.stage}`;
    const named = locate(ctx, field, s.stage, s.step, s.request, s.chunk);
    const at = weightHome(ctx, named);
    const shape = stageShape(at.stage, recordDims(ctx.config, at.piece, ctx.kvSplits, at.chunk));
    const size = shape.reduce((a, b) => a * b, 1);
    const given = s.shape?.reduce((a, b) => a * b, 1);
    if (given !== undefined && given !== size)
      throw (
        keyCountError(ctx, field, at, sizeFits(at, given), shape) ??
        bad(ctx, field, `shape [${s.shape!.join(', ')}] has ${given} elements; ${at.stage} here is [${shape.join(', ')}]`)
      );
    const finite = size - (s.nan ?? 0) - (s.inf ?? 0);
    const r: StageRecord = {
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
    };
    if (fresh(r, field, named, [s.norm, s.max_abs ?? NaN, s.nan ?? 0, s.inf ?? 0])) records.push(r);
  }
  if (!records.length)
    throw bad(ctx, '', 'no stage tensors and no stage statistics', 'write out/stages.safetensors or response.json "stats"');
  records.sort(executionOrder(ctx.pieces));
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
