import { CAUSES, CHECK_NAMES, CULPRITS, FAULT_NAMES, FLOOR_SOURCES, LOADER_FAULTS, ORIGINS, PATH_NAMES, SCALAR_NAMES, VERDICTS, WEIGHT_NAMES, WEIGHT_VERDICTS } from './enums';
import type { Schema } from './json-schema';
import { WHERE, WHERE_OPT, arr, bool, count, finite, map, num, nullable, obj, oneOf, ref, str, strs, trueOnly, ints } from './json-schema';

const agreeDiverge = oneOf(['agree', 'diverge']);

/** `cases[].comparison`, `diagnosis`, `detail`, `replay`, `expectation` (src/harness/compare) and `weights` (the W stage). */
export function compareDefs(): Record<string, Schema> {
  return {
    verdict: oneOf(VERDICTS),
    culprit: oneOf(CULPRITS),
    pairVerdict: obj({ a: ref('path'), b: ref('path'), verdict: ref('verdict'), relErr: num, normRatio: num, normOnly: trueOnly }, ['normOnly']),
    stageVerdict: obj({
      ...WHERE, verdict: ref('verdict'), tolerance: finite, floorMultiple: finite,
      floor: obj({ value: finite, source: oneOf(FLOOR_SOURCES), storage: finite }, ['storage']), vsReference: map(num, PATH_NAMES.filter((p) => p !== 'reference' && p !== 'external')),
      pairs: arr(ref('pairVerdict')), checks: arr(obj({ path: ref('path'), name: oneOf(CHECK_NAMES), violations: count })),
      culprit: nullable(ref('culprit')),
    }, [...WHERE_OPT, 'floorMultiple']),
    divergence: obj({ ...WHERE, verdict: ref('verdict'), culprit: ref('culprit'), relErr: num, normRatio: num }, WHERE_OPT),
    caseComparison: obj({
      verdict: agreeDiverge, firstDivergence: nullable(ref('divergence')), stages: arr(ref('stageVerdict')),
      worstEngine: nullable(obj({ ...WHERE, relErr: num }, WHERE_OPT)),
      scalarMismatches: arr(obj({ step: count, request: str, name: oneOf(SCALAR_NAMES), values: map({ type: ['number', 'string', 'boolean', 'null'] }, PATH_NAMES) })),
    }),
    diagnosis: obj({ cause: oneOf(CAUSES), summary: str, evidence: str, matches: oneOf([...FAULT_NAMES, ...LOADER_FAULTS]) }, ['matches']),
    recordDetail: obj({ ...WHERE, a: ref('path'), b: ref('path'), positions: ints, perToken: { type: ['array', 'null'], items: num }, perHead: { type: ['array', 'null'], items: num } }, WHERE_OPT),
    caseDetail: obj({ records: arr(ref('recordDetail')), entropy: arr(obj({ step: count, request: str, paths: map(num, PATH_NAMES) })) }),
    replayResult: obj({
      ...WHERE, path: ref('devicePath'), origin: oneOf(ORIGINS), source: nullable(ref('path')), relErrAfter: num, tolerance: finite,
      inputs: arr(obj({ ...WHERE, from: ref('path') }, WHERE_OPT)), reason: str,
    }, [...WHERE_OPT, 'reason']),
    caseReplay: obj({ results: arr(ref('replayResult')), runs: count, seconds: finite }),
    expectationResult: obj({ met: bool, misses: strs }),
    caseResult: obj({
      trace: ref('caseTrace'), comparison: ref('caseComparison'), detail: ref('caseDetail'), diagnosis: arr(ref('diagnosis')),
      replay: ref('caseReplay'), expectation: ref('expectationResult'),
    }, ['detail', 'replay', 'expectation']),
    ...weightDefs(),
  };
}

function weightDefs(): Record<string, Schema> {
  const weight = oneOf(WEIGHT_NAMES);
  const across = obj({ ...WHERE, path: oneOf(['mha', 'mqa']), relErr: num, allowed: num, verdict: agreeDiverge }, WHERE_OPT);
  return {
    weightRecord: obj({ name: weight, tensors: strs, dtype: str, shape: ints, norm: num, maxAbs: num, nonFinite: count, checksum: { type: 'string', pattern: '^[0-9a-f]{16}$' }, boundNorm: num }),
    weightSet: obj({ label: str, records: arr(ref('weightRecord')) }),
    weightsReport: obj({
      primary: ref('weightSet'), compare: ref('weightSet'), heads: ref('headSlice'),
      comparison: obj({
        verdict: agreeDiverge,
        weights: arr(obj({
          name: weight, relErr: num, maxAbsErr: num, maxAbsErrAt: ints, allowed: num, beyond: count,
          nonFinite: { type: 'array', items: count, minItems: 2, maxItems: 2 }, shapeMatch: bool, verdict: oneOf(WEIGHT_VERDICTS),
        })),
        firstWeight: nullable(weight), activations: arr(across), firstActivation: map(across, ['mha', 'mqa']),
      }),
      expectation: ref('expectationResult'),
    }, ['compare', 'heads', 'comparison', 'expectation']),
  };
}
