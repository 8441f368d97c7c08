import { MlaDiffError } from '../../errors';
import { STAGES } from '../../trace/stages';
import type { At, ImportContext } from './locate';
import { toCanonical } from './layout-map';
import type { Dims } from './shapes';
import { groupedAxes, recordDims, stageShape } from './shapes';

/**
 * The commonest misshaped tensor of a piece with context: a per-token stage (k_nope, v, k, kv_nope,
 * the query axis of logits) written with all S = start + T keys of the request, or a per-key stage
 * (kv_cache, the key axis of logits) with only the piece's T tokens. Given a tensor (or a statistic's
 * element count) that does not fit the stage, this names that reading of it: external-key-count, or
 * null when swapping T and S does not make it fit either.
 */
export function keyCountError(
  ctx: ImportContext,
  field: string,
  at: At,
  fits: (dims: Dims) => boolean,
  canonicalShape: readonly number[],
): MlaDiffError | null {
  const d = recordDims(ctx.config, at.piece, ctx.kvSplits, at.chunk);
  if (d.S === d.T) return null;
  const spec = STAGES[at.stage].shape;
  const { T, S } = d;
  const start = at.piece.start;
  const piece = `${at.piece.step}/${at.piece.request}`;
  const is = `${at.stage} of ${piece} is ${spec} = [${canonicalShape.join(', ')}]`;
  const fail = (message: string, hint: string) => new MlaDiffError('external-key-count', message, { file: ctx.file, field }, hint);
  if (/\bT\b/.test(spec) && fits({ ...d, T: S }))
    return fail(
      `${is}: this stage holds the piece's own T = ${T} tokens, not all S = ${S} keys of the request`,
      `write the rows of cache indices ${start} … ${S - 1} (in PyTorch: x[${start}:] of the [S, …] tensor)`,
    );
  if (/\bS\b/.test(spec) && fits({ ...d, S: T }))
    return fail(
      `${is}: this stage holds all S = start + T = ${S} keys the piece sees, not only its own T = ${T} tokens`,
      `the keys are cache indices 0 … ${S - 1}: the ${start} already cached and the piece's own ${T}`,
    );
  return null;
}

/** Whether a tensor of shape `got`, written in `declared`, fits the stage at these dims. */
export const tensorFits =
  (at: At, got: readonly number[], declared: string) =>
  (dims: Dims): boolean => {
    const want = stageShape(at.stage, dims);
    const probe = new Float32Array(0);
    return typeof toCanonical(probe, got, declared, STAGES[at.stage].layout, want, groupedAxes(dims)) !== 'string';
  };

/** Whether a statistic of `size` elements fits the stage at these dims. */
export const sizeFits =
  (at: At, size: number) =>
  (dims: Dims): boolean =>
    stageShape(at.stage, dims).reduce((a, b) => a * b, 1) === size;
