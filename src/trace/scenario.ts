import { z } from 'zod';
import type { MlaConfig } from './model-config';
import { STAGE_NAMES } from './stages';
import { asJson, bool, count, def, finite, int, ints, keyed, oneOf, str } from './json';
import { culpritName, deviceName, faultName, LINEAR_NAMES, loaderFault, NORM_NAMES, outcome, stageName, weightName } from './names';
import { precisionSpec } from './precision';
import { GGUF_PLANTS } from './faults';

/** The engines mla-diff drives itself. */
export const ENGINE_NAMES = ['llama.cpp'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/**
 * The resolved scenario as a report echoes it (`scenario`, src/harness/scenario has the parsing)
 * and the device that ran it (`device`).
 */

/** An MlaConfig after overrides: in JSON an open map (presets add keys). */
const mlaConfig = asJson(z.custom<MlaConfig>(), { type: 'object', additionalProperties: {} });
const configOverrides = asJson(z.custom<Partial<MlaConfig>>(), { type: 'object', additionalProperties: {} });
const fromFile = { file: str, layer: count, overrides: configOverrides };

/**
 * A weight source as plain data, so that a worker thread can open the same source: the float64
 * reference regenerates (or, for checkpoints, re-reads) exactly the values the device holds.
 */
export const sourceSpec = def(
  'sourceSpec',
  z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('synthetic'),
      config: mlaConfig,
      seed: int,
      gain: keyed([...LINEAR_NAMES, ...NORM_NAMES], finite).optional(),
    }),
    z.strictObject({ kind: z.literal('gguf'), ...fromFile, fault: loaderFault.optional() }),
    z.strictObject({ kind: z.literal('safetensors'), ...fromFile }),
  ]),
);
export type SourceSpec = z.infer<typeof sourceSpec>;

const PHASE_KINDS = ['prefill', 'decode', 'cached'] as const;
/** The JSON of a phase: one closed object, `chunk` optional whatever the kind. */
const { $schema: _, ...phaseJson } = z.toJSONSchema(z.strictObject({ kind: oneOf(PHASE_KINDS), tokens: count, chunk: count.optional() }));
/** One phase of a request: a prefill (possibly chunked over engine steps), decode steps of one token, a prefix-cache hit. */
export const phase = def(
  'phase',
  asJson(
    z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('prefill'), tokens: count, chunk: count.optional() }),
      z.strictObject({ kind: z.literal('decode'), tokens: count }),
      z.strictObject({ kind: z.literal('cached'), tokens: count }),
    ]),
    phaseJson,
  ),
);
export type Phase = z.infer<typeof phase>;

export const requestPlan = def(
  'requestPlan',
  z.strictObject({
    name: str,
    /** Every token id the request will ever hold, in order. */
    ids: ints,
    /** The engine step at which its first phase runs. */
    startStep: count,
    /** RoPE position of token 0 (cache indices still start at 0). */
    positionOffset: int,
    phases: z.array(phase),
  }),
);
export type RequestPlan = z.infer<typeof requestPlan>;

const mode = oneOf(['auto', 'on', 'off']);
export type ReferenceMode = z.infer<typeof mode>;
/** Stage replay of divergent records: auto (selected records, capped), on (every divergent record), off. */
export type ReplayMode = z.infer<typeof mode>;

/** How the engine runs a schedule (scenario `schedule:`). */
export const scheduleOptions = z.strictObject({
  blockSize: count,
  decodeThreshold: count,
  contextChunk: count,
  kvSplits: count,
  prefillKernel: oneOf(['fa3', 'fa2']),
  cold: mode,
  /** Fused (or tiled) attention without the score tensor: auto = where the unfused scores would not fit. */
  attention: oneOf(['auto', 'fused', 'unfused']),
  /** Sampled logits rows (`logits_rows:`): query token indices within each piece, negative from its end; absent: every row. */
  logitsRows: ints.readonly().optional(),
});
export type ScheduleOptions = z.infer<typeof scheduleOptions>;

/** A tolerance as a scenario gives it: a number is a relative-L2 bound (`{rel: x}` in YAML); `{floor: k}` k × the record's noise floor. */
export const toleranceRule = z.union([finite, z.strictObject({ floor: finite })]);
export type ToleranceRule = z.infer<typeof toleranceRule>;
/** Tolerances: a default and per-stage overrides, as a scenario's `tolerances:` gives them. */
export const toleranceSpec = z.strictObject({ default: toleranceRule.optional(), stages: keyed(STAGE_NAMES, toleranceRule).optional() });
export type ToleranceSpec = z.infer<typeof toleranceSpec>;

/** The outcome across two weight sources (`compare_weights:`). */
export const weightsExpectation = z.strictObject({
  outcome,
  first_divergence: weightName.optional(),
  mha: stageName.optional(),
  mqa: stageName.optional(),
});
export type WeightsExpectation = z.infer<typeof weightsExpectation>;
/** What a scenario declares under `expect:`. */
export const expectation = z.strictObject({
  outcome,
  first_divergence: stageName.optional(),
  culprit: culpritName.optional(),
  /** Engine step and request of the first divergence. */
  step: count.optional(),
  request: str.optional(),
  weights: weightsExpectation.optional(),
});
export type Expectation = z.infer<typeof expectation>;

const stringMap = z.record(z.string(), z.string());
/** An external backend (scenario `external:`): a command computing the layer over the schedule. */
export const externalSpec = z.strictObject({
  command: str,
  /** Label in reports (default "external"). */
  name: str,
  timeoutS: finite,
  /** Stages asked for (default: every stage). */
  stages: z.array(stageName).nullable(),
  /** Layouts the backend writes where they differ from the canonical ones. */
  layouts: stringMap,
  /** Backend tensor names → mla-diff stage names. */
  names: stringMap,
});
export type ExternalSpec = z.infer<typeof externalSpec>;
/** An engine's dump of named tensors or norms (scenario `trace:`, or `--trace`). */
export const traceSpec = z.strictObject({ file: str, layouts: stringMap, names: stringMap });
export type TraceSpec = z.infer<typeof traceSpec>;

/** A real engine run as the third-party path (scenario `engines:`, or `--engine`): src/harness/engines. */
export const engineSpec = def(
  'engineSpec',
  z.strictObject({
    name: oneOf(ENGINE_NAMES),
    flashAttn: bool,
    cacheType: oneOf(['f32', 'f16']),
    threads: count,
    gpuLayers: count,
    timeoutS: finite,
    /** The architecture the GGUF declares: deepseek2 (DeepSeek-V2/V3) or glm-dsa (GLM-5). */
    arch: oneOf(['deepseek2', 'glm-dsa']),
    /** split attn_k_b/attn_v_b (the absorbed graph) or the legacy merged attn_kv_b (the MHA graph). */
    kvB: oneOf(['split', 'merged']),
    /** Converter bugs planted in the engine's GGUF only. */
    plants: z.array(oneOf(GGUF_PLANTS)),
  }),
);
export type EngineSpec = z.infer<typeof engineSpec>;

/** The resolved scenario as JSON (src/harness/scenario Scenario without its cases; fault sets as arrays). */
export const scenarioEcho = def(
  'scenarioEcho',
  z.strictObject({
    name: str,
    file: str.nullable(),
    description: str.optional(),
    /** The preset, or the checkpoint kind whose config runs. */
    preset: str,
    config: mlaConfig,
    /** Seeds synthetic weights and ids, and shuffles the block tables. */
    seed: int,
    weights: sourceSpec,
    /** A second source of the same layer, compared weight by weight and activation by activation. */
    compareWeights: sourceSpec.optional(),
    /** Where prompt text was tokenized, e.g. `GGUF vocabulary (…)`. */
    tokenizer: str.optional(),
    text: str.optional(),
    /** The prompt's `bos:` (auto: as the tokenizer says), where text was tokenized. */
    bos: oneOf(['auto', 'true', 'false']).optional(),
    /** Each id of the tokenized prompt's text (requests[0].ids) as the tokenizer writes it: ' capital', '<｜begin▁of▁sentence｜>'. */
    tokens: z.array(str).optional(),
    requests: z.array(requestPlan),
    schedule: scheduleOptions,
    reference: mode,
    replay: mode,
    faults: z.strictObject({ mha: z.array(faultName), mqa: z.array(faultName) }),
    /** Storage dtypes and rounding points of the paths (float32: none). */
    precision: precisionSpec,
    /** A number is a relative bound (`{rel: x}`), `{floor: k}` k × the record's noise floor. */
    tolerances: toleranceSpec,
    expect: expectation.optional(),
    external: externalSpec.optional(),
    trace: traceSpec.optional(),
    engine: engineSpec.optional(),
  }),
);
export type ScenarioEcho = z.infer<typeof scenarioEcho>;

/** A WebGPU adapter as Dawn describes it. */
export const adapterInfo = z.strictObject({
  vendor: str,
  architecture: str,
  device: str,
  description: str,
  isFallbackAdapter: bool,
  maxStorageBufferBindingSize: finite,
  maxBufferSize: finite,
});
export type AdapterInfo = z.infer<typeof adapterInfo>;

/** What ran, recorded in every report. */
export const deviceInfo = def(
  'deviceInfo',
  z.strictObject({
    name: deviceName,
    /** tf.getBackend() after selection. */
    backend: str,
    /** One line for humans, e.g. `webgpu: NVIDIA H200 (nvidia, hopper)`. */
    description: str,
    /** A software rasterizer/CPU pretending to be a GPU (lavapipe, SwiftShader). */
    software: bool,
    /** Why this device was chosen (auto selection notes). */
    reason: str,
    adapter: adapterInfo.optional(),
  }),
);
export type DeviceInfo = z.infer<typeof deviceInfo>;
