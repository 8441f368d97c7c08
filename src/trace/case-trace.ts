import { z } from 'zod';
import { PATH_NAMES, STAGE_NAMES } from './stages';
import { bool, count, countPair, def, finite, ints, keyed, num, numOrNull, oneOf, scope, str, strs, trueOnly } from './json';
import { checkName, computeDtype, DEVICE_PATHS, ENGINE_PATHS, path, scalarName, stage } from './names';
import { stageDtype } from './precision';

/** `cases[].trace`: what was recorded for one case (src/core/probes records it, src/harness/run diffs it). */

/** A contiguous range of heads: all of them, or one tensor-parallel rank's. */
export const headSlice = def('headSlice', z.strictObject({ start: count, count }));
export type HeadSlice = z.infer<typeof headSlice>;

/** Which piece of which engine step a record belongs to. */
export const scopeSchema = z.strictObject(scope);
export type Scope = z.infer<typeof scopeSchema>;
/** Step, request, stage and (chunked stages) context chunk: where a record sits. */
export const where = { ...scope, stage, chunk: count.optional() };
export const whereSchema = z.strictObject(where);
export type Where = z.infer<typeof whereSchema>;

/** What a probe records about one tensor: enough to read a norm trace, small enough for JSON. */
export const tensorStats = def(
  'tensorStats',
  z.strictObject({
    shape: ints,
    dtype: computeDtype,
    /** Axis names of `shape` (the tapping path's own layout). */
    layout: str,
    size: count,
    /** L2 norm over the finite values. */
    l2: num,
    rms: num,
    mean: num,
    maxAbs: num,
    /** Multi-index of the largest |x| in `shape`. */
    maxAbsAt: ints,
    nanCount: count,
    infCount: count,
  }),
);
export type TensorStats = z.infer<typeof tensorStats>;

export const stageRecord = def(
  'stageRecord',
  z.strictObject({
    ...where,
    stats: tensorStats,
    /**
     * Only statistics are known (an external backend's norms, a jsonl dump): no values to diff; `mean`, and
     * `maxAbs` unless given, are NaN.
     */
    statsOnly: trueOnly.optional(),
    /**
     * The values hold the causal mask (an external backend's logits written after masked_fill: −inf or a large negative at
     * the keys after the query, declared or detected, docs/external-backends.md): compared at the visible keys only.
     */
    masked: trueOnly.optional(),
    /** Invariant checks on this stage, e.g. LSE bounds: rows that break it. */
    checks: z.array(z.strictObject({ name: checkName, violations: count })).optional(),
  }),
);
export type StageRecord = z.infer<typeof stageRecord>;

/** A recorded scalar; in JSON null where a number was NaN. */
export const scalarValue = z.union([num, str, bool]);
export const pieceTrace = def('pieceTrace', z.strictObject({ ...scope, scalars: keyed(scalarName.options, scalarValue) }));
export type PieceTrace = z.infer<typeof pieceTrace>;

/** One path's trace: plain data, the unit of the versioned JSON. */
export const pathTrace = def(
  'pathTrace',
  z.strictObject({
    path,
    precision: computeDtype,
    /** In execution order: by piece, then pipeline order. */
    stages: z.array(stageRecord),
    pieces: z.array(pieceTrace),
  }),
);
export type PathTrace = z.infer<typeof pathTrace>;

/**
 * Elementwise agreement of one stage of one piece between two paths, measured where the values
 * live (on the device for two tfjs paths, on the host against the float64 reference), in
 * canonical layout. Equal infinities agree (an empty chunk's −inf LSE); NaN never does.
 */
export const pairDiff = def(
  'pairDiff',
  z.strictObject({
    ...where,
    a: path,
    b: path,
    shapeMatch: bool,
    /**
     * ‖a − b‖ / max(‖a‖, ‖b‖) over positions finite in both (for an LSE stage, max(‖a‖, ‖b‖, √n): at
     * least one nat per element); Infinity if an infinity differs; null when not measured.
     */
    relErr: numOrNull,
    maxAbsErr: numOrNull,
    /** Position of the largest |a − b| in the canonical layout. */
    maxAbsErrAt: ints.nullable(),
    cosine: numOrNull,
    /** ‖a‖ / ‖b‖. */
    normRatio: numOrNull,
    /** NaN counts of a and b. */
    nan: countPair,
    /** Positions where an infinity of one side is not matched by the same infinity on the other. */
    infMismatch: count,
    /**
     * One side is known only by its statistics (src/harness/run/norm-diff.ts): relErr is |‖a‖ − ‖b‖| / max(‖a‖, ‖b‖),
     * a lower bound of the relative error; it can prove a divergence, never agreement beyond it.
     */
    normOnly: trueOnly.optional(),
  }),
);
export type PairDiff = z.infer<typeof pairDiff>;

/** One request's share of one engine step, as the schedule made it. */
export const pieceInfo = def(
  'pieceInfo',
  z.strictObject({
    ...scope,
    kind: oneOf(['prefill', 'decode', 'cached']),
    /** The path the engine sends it through. */
    route: oneOf(ENGINE_PATHS),
    /** Cache index of its first token (tokens already in the cache). */
    start: count,
    count,
    /** MHA context chunks (0 without context). */
    chunks: count,
  }),
);
export type PieceInfo = z.infer<typeof pieceInfo>;

/** What the run JSON says about the external path of a case (CaseTrace.external). */
/** What a run of llama.cpp was: its build, devices, settings, the scalars read from its op params. */
export const engineInfo = def(
  'engineInfo',
  z.strictObject({
    versions: z.strictObject({ llama: str, ggml: str, commit: str }),
    devices: z.array(str),
    arch: str,
    graph: oneOf(['absorbed', 'legacy']),
    /** What its CPU products round the activations to for the model's weight types (ggml's vec_dot_type); f32 for F32 weights. */
    activation: oneOf(['f32', 'f16', 'bf16', 'q8_0', 'q8_k']),
    cacheType: str,
    flashAttn: bool,
    threads: count,
    gpuLayers: count,
    plants: z.array(str),
    /** The softmax scale of its SOFT_MAX / FLASH_ATTN_EXT op, and RoPE's n_dims, mode, freq_base, freq_scale, ext_factor, attn_factor. */
    opScalars: z.record(z.string(), z.number()),
    /**
     * RMS over the rotary pairs of |δθ| at the largest position: llama.cpp computes RoPE angles position·θ_i in
     * float32, so each carries ~2 ulps of it (u32 · max position · rms θ_i, θ after YaRN): a rounding point of its own.
     */
    ropeAngleError: finite,
    /** What the runnable GGUF filled in around the layer. */
    filled: z.array(str),
    loadSeconds: finite,
    decodeSeconds: finite,
    nodes: count,
  }),
);
export type EngineInfo = z.infer<typeof engineInfo>;

export const externalInfo = def(
  'externalInfo',
  z.strictObject({
    /** Label in reports: external: name, response.json name, or the dump's file name. */
    name: str,
    kind: oneOf(['command', 'trace', 'engine']),
    /** The command, or the dump file. */
    source: str,
    precision: str.optional(),
    device: str.optional(),
    /** Records known only by their statistics (compared by norm: a lower bound of the error). */
    statsOnly: count,
    /** The exchange directory, when kept (--keep-external). */
    dir: str.optional(),
    /**
     * RMS relative error of RoPE's rotation factors computed as engines compute them (position·inv_freq in fp32) against the
     * exact ones, at the case's largest piece: the RoPE term of a third party's noise floor (absent: not modelled).
     */
    ropeAngleError: finite.optional(),
    /** An engine mla-diff drove (kind engine): its release, what it ran on and with, what it recorded. */
    engine: engineInfo.optional(),
  }),
);
export type ExternalInfo = z.infer<typeof externalInfo>;

/** What was recorded for one case: per-path traces and the elementwise diffs between paths. */
export const caseTrace = def(
  'caseTrace',
  z.strictObject({
    name: str,
    label: str,
    heads: headSlice,
    totalHeads: count,
    /** Every piece of the schedule, in execution order (cache fills included). */
    pieces: z.array(pieceInfo),
    paths: keyed(PATH_NAMES, pathTrace),
    diffs: z.array(pairDiff),
    /** Softmax scale the config calls for: qk_head_dim^-0.5 (· mscale²). */
    expectedSoftmaxScale: finite,
    /**
     * Seconds per device path over all pieces, recording included: each step from its encoding to its
     * completion (the paths of a piece overlap on the GPU: see stepPaths).
     */
    seconds: keyed(PATH_NAMES, finite),
    notes: strs,
    /** The external path's origin (a backend's command or an engine dump), when the case has one. */
    external: externalInfo.optional(),
    /** Per device path, the stages it keeps in a narrower dtype than float32 (absent: all float32). */
    dtypes: keyed(DEVICE_PATHS, keyed(STAGE_NAMES, stageDtype)).optional(),
    /**
     * Memory of the case's run, the comparison streamed piece by piece: the device bytes tfjs held at most
     * (sampled as each piece ends, its values all held; webgpu: its buffers, the reuse pool included), the
     * engine-path values held at once at most (a piece's, those kept for detail and replay, those awaiting a
     * third party), the bytes of all engine-path values compared (what holding them all would take), and the
     * pieces re-run for values the comparison had released (0: none).
     */
    memory: z.strictObject({ peakBytes: count, heldBytes: count, valueBytes: count, rerunPieces: count }).optional(),
  }),
);
export type CaseTrace = z.infer<typeof caseTrace>;
