import { ACTIVATION_DTYPES, KERNEL_PRESETS, KV_CACHE_DTYPES, ROUND_POINTS } from '../../core/precision/plan';
import { LINEAR_NAMES, NORM_NAMES } from '../../core/weights/layer';
import { CULPRITS, DEVICE_NAMES, FAULT_NAMES, LOADER_FAULTS, STAGE_NAMES, WEIGHT_NAMES } from './enums';
import type { Schema } from './json-schema';
import { arr, bool, count, finite, ints, map, obj, oneOf, ref, str } from './json-schema';

/** The resolved scenario echoed in a report (src/harness/run/trace.ts ScenarioEcho) and the device that ran it. */
export function scenarioDefs(): Record<string, Schema> {
  const config = map({}); // MlaConfig after overrides: an open map (presets add keys)
  const fromFile = { file: str, layer: count, overrides: map({}) };
  const stringMap = map(str);
  const tolerance = { anyOf: [finite, obj({ floor: finite })] };
  const pathRounding = { anyOf: [oneOf(KERNEL_PRESETS), arr(oneOf(ROUND_POINTS))] };
  return {
    sourceSpec: {
      oneOf: [
        obj({ kind: { const: 'synthetic' }, config, seed: { type: 'integer' }, gain: map(finite, [...LINEAR_NAMES, ...NORM_NAMES]) }, ['gain']),
        obj({ kind: { const: 'gguf' }, ...fromFile, fault: oneOf(LOADER_FAULTS) }, ['fault']),
        obj({ kind: { const: 'safetensors' }, ...fromFile }),
      ],
    },
    phase: obj({ kind: oneOf(['prefill', 'decode', 'cached']), tokens: count, chunk: count }, ['chunk']),
    requestPlan: obj({ name: str, ids: ints, startStep: count, positionOffset: { type: 'integer' }, phases: arr(ref('phase')) }),
    scenarioEcho: obj({
      name: str, file: { type: ['string', 'null'] }, description: str, preset: str, config, seed: { type: 'integer' },
      weights: ref('sourceSpec'), compareWeights: ref('sourceSpec'), tokenizer: str, text: str, requests: arr(ref('requestPlan')),
      schedule: obj({
        blockSize: count, decodeThreshold: count, contextChunk: count, kvSplits: count, prefillKernel: oneOf(['fa3', 'fa2']), cold: oneOf(['auto', 'on', 'off']), attention: oneOf(['auto', 'fused', 'unfused']), logitsRows: ints,
      }, ['logitsRows']),
      reference: oneOf(['auto', 'on', 'off']), replay: oneOf(['auto', 'on', 'off']),
      faults: obj({ mha: arr(oneOf(FAULT_NAMES)), mqa: arr(oneOf(FAULT_NAMES)) }),
      precision: obj({
        dtype: oneOf(ACTIVATION_DTYPES), kvCache: oneOf(KV_CACHE_DTYPES),
        cacheScale: { oneOf: [obj({ kind: { const: 'per-tensor' }, k_scale: finite }), obj({ kind: { const: 'per-token' }, tile: count })] },
        rounding: obj({ mha: pathRounding, mqa: pathRounding }),
      }),
      tolerances: obj({ default: tolerance, stages: map(tolerance, STAGE_NAMES) }, ['default', 'stages']),
      expect: obj({
        outcome: oneOf(['agree', 'diverge']), first_divergence: oneOf(STAGE_NAMES), culprit: oneOf(CULPRITS), step: count, request: str,
        weights: obj({ outcome: oneOf(['agree', 'diverge']), first_divergence: oneOf(WEIGHT_NAMES), mha: oneOf(STAGE_NAMES), mqa: oneOf(STAGE_NAMES) }, ['first_divergence', 'mha', 'mqa']),
      }, ['first_divergence', 'culprit', 'step', 'request', 'weights']),
      external: obj({
        command: str, name: str, timeoutS: finite, stages: { type: ['array', 'null'], items: oneOf(STAGE_NAMES) }, layouts: stringMap, names: stringMap,
      }),
      trace: obj({ file: str, layouts: stringMap, names: stringMap }),
    }, ['description', 'compareWeights', 'tokenizer', 'text', 'expect', 'external', 'trace']),
    deviceInfo: obj({
      name: oneOf(DEVICE_NAMES), backend: str, description: str, software: bool, reason: str,
      adapter: obj({
        vendor: str, architecture: str, device: str, description: str, isFallbackAdapter: bool, maxStorageBufferBindingSize: finite, maxBufferSize: finite,
      }),
    }, ['adapter']),
  };
}
