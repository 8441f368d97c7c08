import { STORAGE_DTYPES } from '../../core/precision/formats';
import { CHECK_NAMES, PATH_NAMES, SCALAR_NAMES, STAGE_NAMES } from './enums';
import type { Schema } from './json-schema';
import { WHERE, WHERE_OPT, arr, bool, count, finite, ints, map, num, obj, oneOf, ref, str, strs, trueOnly } from './json-schema';

/** `cases[].trace` and what it holds (src/harness/run/trace.ts CaseTrace, src/core/probes/recorder.ts, src/harness/run/diff.ts). */
export function traceDefs(): Record<string, Schema> {
  const scope = { step: count, request: str };
  return {
    stage: oneOf(STAGE_NAMES),
    path: oneOf(PATH_NAMES),
    devicePath: oneOf(PATH_NAMES.filter((p) => p !== 'reference' && p !== 'external')),
    headSlice: obj({ start: count, count }),
    tensorStats: obj({
      shape: ints, dtype: oneOf(['float32', 'float64']), layout: str, size: count, l2: num, rms: num, mean: num, maxAbs: num,
      maxAbsAt: ints, nanCount: count, infCount: count,
    }),
    stageRecord: obj({
      ...WHERE, stats: ref('tensorStats'), statsOnly: trueOnly, checks: arr(obj({ name: oneOf(CHECK_NAMES), violations: count })),
    }, [...WHERE_OPT, 'statsOnly', 'checks']),
    pieceTrace: obj({ ...scope, scalars: map({ type: ['number', 'string', 'boolean', 'null'] }, SCALAR_NAMES) }),
    pathTrace: obj({
      path: ref('path'), precision: oneOf(['float32', 'float64']), stages: arr(ref('stageRecord')), pieces: arr(ref('pieceTrace')),
    }),
    pairDiff: obj({
      ...WHERE, a: ref('path'), b: ref('path'), shapeMatch: bool, relErr: num, maxAbsErr: num, maxAbsErrAt: { type: ['array', 'null'], items: { type: 'integer' } },
      cosine: num, normRatio: num, nan: { type: 'array', items: count, minItems: 2, maxItems: 2 }, infMismatch: count, normOnly: trueOnly,
    }, [...WHERE_OPT, 'normOnly']),
    pieceInfo: obj({
      ...scope, kind: oneOf(['prefill', 'decode', 'cached']), route: oneOf(['mha', 'mqa']), start: count, count, chunks: count,
    }),
    externalInfo: obj({
      name: str, kind: oneOf(['command', 'trace']), source: str, precision: str, device: str, statsOnly: count, dir: str,
    }, ['precision', 'device', 'dir']),
    caseTrace: obj({
      name: str, label: str, heads: ref('headSlice'), totalHeads: count, pieces: arr(ref('pieceInfo')),
      paths: map(ref('pathTrace'), PATH_NAMES), diffs: arr(ref('pairDiff')), expectedSoftmaxScale: finite,
      seconds: map(finite, PATH_NAMES), notes: strs, external: ref('externalInfo'),
      dtypes: map(map(oneOf(['float32', ...STORAGE_DTYPES]), STAGE_NAMES), PATH_NAMES.filter((p) => p !== 'reference' && p !== 'external')),
    }, ['external', 'dtypes']),
  };
}
