import type { DevicePath, PathName, StageName } from '../../trace/stages';
import { unitRoundoff } from '../../core/precision/formats';
import type { CaseTrace, NoiseFloor, PairDiff, Where } from '../../trace';
import { STAGES } from '../../trace/stages';

/**
 * Noise floors: how far a record of an fp32 path may sit from the exact value through rounding
 * alone. The idea of PyTorch dynamo's same(): a candidate passes if its error against float64 is
 * within k × the error the plain fp32 implementation (eager) has there. Here that implementation
 * is the cold path (HF eager in fp32), so with the float64 reference a record's floor is
 * relErr(cold, reference). Where that is not measured, the fallbacks (FloorSource), in this order.
 * Pure: diffs in, floors out. NoiseFloor and FloorSource: src/trace/comparison.ts, src/trace/names.ts.
 */
export type { FloorSource, NoiseFloor } from '../../trace';

/**
 * `floor` with the storage term of `stage`: the largest u/√3 over the engine paths that keep the
 * stage narrower than cold keeps it (stages cold does not record take their floor upstream instead).
 */
export function withStorage(floor: NoiseFloor, dtypes: CaseTrace['dtypes'], stage: StageName, coldHas: boolean): NoiseFloor {
  if (!dtypes || !coldHas) return floor;
  const cold = unitRoundoff(dtypes.cold?.[stage] ?? 'float32');
  const u = Math.max(0, ...(['mha', 'mqa'] as const).map((p) => unitRoundoff(dtypes[p]?.[stage] ?? 'float32')).filter((x) => x > cold));
  if (!u) return floor;
  const storage = u / Math.sqrt(3);
  return { ...floor, value: Math.hypot(floor.value, storage), storage };
}

/**
 * fp32 unit roundoff 2^-24 ≈ 6e-8: no floor is lower. A stage the paths compute exactly alike
 * (hidden_in, kv_cache) or an exact rearrangement would otherwise get a zero floor and a zero tolerance.
 */
export const MIN_FLOOR = 2 ** -24;

const FP32: readonly DevicePath[] = ['mha', 'mqa', 'cold'];

/** A measured relErr that says something about rounding: finite, shapes matching, no NaN on either side. */
const measured = (d: PairDiff | undefined): number | null =>
  d && d.shapeMatch && d.relErr !== null && Number.isFinite(d.relErr) && !d.nan[0] && !d.nan[1] ? d.relErr : null;

const pair = (diffs: readonly PairDiff[], a: PathName, b: PathName) =>
  diffs.find((d) => (d.a === a && d.b === b) || (d.a === b && d.b === a));

/** Each fp32 path's relErr against the float64 reference at one record (the paths measured there). */
export function vsReference(diffs: readonly PairDiff[]): Partial<Record<DevicePath, number>> {
  const out: Partial<Record<DevicePath, number>> = {};
  for (const p of FP32) {
    const d = pair(diffs, p, 'reference');
    if (d?.relErr != null) out[p] = d.relErr;
  }
  return out;
}

/** The floor a record's own diffs give, before the upstream and minimum fallbacks. */
function ownFloor(diffs: readonly PairDiff[]): NoiseFloor | null {
  const cold = measured(pair(diffs, 'cold', 'reference'));
  if (cold !== null) return { value: cold, source: 'reference' };
  const vsRef = FP32.map((p) => measured(pair(diffs, p, 'reference'))).filter((x): x is number => x !== null);
  // One wrong path cannot raise the smallest of two or more; with a single path it would be judged by itself.
  if (vsRef.length >= 2) return { value: Math.min(...vsRef), source: 'best-path' };
  if (diffs.some((d) => d.b === 'reference')) return null;
  // Without the reference: three paths computing the same value in different orders; a bug in one
  // leaves the other two agreeing, so the smallest pairwise difference is still rounding.
  const pairs = [pair(diffs, 'mha', 'mqa'), pair(diffs, 'mha', 'cold'), pair(diffs, 'mqa', 'cold')];
  if (pairs.some((d) => !d)) return null;
  const xs = pairs.map(measured).filter((x): x is number => x !== null);
  return xs.length ? { value: Math.min(...xs), source: 'paths' } : null;
}

/**
 * The noise floor of every record, keyed as `key` keys them. `records` must be in execution order
 * (schedule, then pipeline): the upstream fallback takes the largest floor met so far in the piece.
 * Records only one fp32 path has (ql_nope, mqa_q, split_lse, attn_out_latent; the context stages)
 * use it: their floor then comes from the cold path's records of the inputs they are computed
 * from, never from the values being judged, so a bug at such a record cannot raise its own tolerance.
 */
export function noiseFloors(
  records: readonly Where[],
  diffsOf: (w: Where) => readonly PairDiff[],
  key: (w: Where) => string,
): Map<string, NoiseFloor> {
  const out = new Map<string, NoiseFloor>();
  const upstream = new Map<string, number>(); // piece → largest floor so far
  for (const w of records) {
    const piece = `${w.step}/${w.request}`;
    const own = STAGES[w.stage].kind === 'weight' ? { value: MIN_FLOOR, source: 'minimum' as const } : ownFloor(diffsOf(w));
    const before = upstream.get(piece);
    const f: NoiseFloor = own ?? (before !== undefined ? { value: before, source: 'upstream' } : { value: MIN_FLOOR, source: 'minimum' });
    const floor = { value: Math.max(f.value, MIN_FLOOR), source: f.source };
    out.set(key(w), floor);
    upstream.set(piece, Math.max(before ?? 0, floor.value));
  }
  return out;
}

/**
 * The k of `{floor: k}` the selftest's floor mode uses and the docs recommend for fp32: chosen
 * from the noise-floor calibration (clean runs' largest error stays under 2.3 floors; every planted
 * fault's error at the stage it enters is 10^5 floors and more).
 */
export const CALIBRATED_K = 8;

/** Stages that read llama.cpp's K cache (its V is a view of it): they inherit its rounding. */
const READS_CACHE: ReadonlySet<StageName> = new Set<StageName>([
  'kv_cache',
  'logits',
  'attn_probs',
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
]);
const AFTER_SOFTMAX: ReadonlySet<StageName> = new Set<StageName>([
  'attn_probs',
  'attn_out_latent',
  'attn_out_heads',
  'attn_out',
  'o_proj_out',
]);
const AFTER_PV: ReadonlySet<StageName> = new Set<StageName>(['attn_out_latent', 'attn_out_heads', 'attn_out', 'o_proj_out']);

/**
 * The storage term of an engine's own rounding points at `stage` (docs/llama-cpp.md, "Precision"): the K cache
 * stored in F16 (u/√3 per element, round to nearest), or flash attention's F16 copies of Q, K and V. A logit's
 * absolute error is its size times the key's relative rounding, so from the softmax on the term grows with the
 * logits' RMS `logitsRms` (≥ 1); the P·V product adds V's own rounding. 0 where the engine rounds as fp32 does.
 */
export function engineStorage(
  e: { cacheType: string; flashAttn: boolean; ropeAngleError: number; activation?: string } | undefined,
  stage: StageName,
  logitsRms: number,
): number {
  if (!e) return 0;
  const rope = Math.hypot(ropeTerm(e.ropeAngleError, stage, logitsRms), activationTerm(e.activation, stage, logitsRms));
  if (!READS_CACHE.has(stage)) return rope;
  const f16 = e.cacheType === 'f16';
  if (!f16 && !e.flashAttn) return rope;
  if (stage === 'kv_cache') return Math.hypot(rope, f16 ? unitRoundoff('float16') / Math.sqrt(3) : 0);
  const u = unitRoundoff('float16') / Math.sqrt(3);
  const roundings = e.flashAttn ? 2 : 1; // K, and with flash attention Q too
  let s = u * Math.sqrt(roundings);
  if (AFTER_SOFTMAX.has(stage)) s *= Math.max(1, logitsRms);
  if (AFTER_PV.has(stage)) s = Math.hypot(s, u * (e.flashAttn ? Math.SQRT2 : 1)); // V, and flash attention's F16 accumulation
  return Math.hypot(s, rope);
}

const ROTATED: ReadonlySet<StageName> = new Set<StageName>(['q_pe', 'k_pe', 'q', 'mqa_q', 'k', 'kv_cache']);

/** The float32 RoPE angles' term: the rotated rows carry δθ; a logit both of its rotated factors; from the softmax on × the logits' RMS. */
function ropeTerm(delta: number, stage: StageName, logitsRms: number): number {
  if (!delta) return 0;
  if (ROTATED.has(stage)) return delta;
  if (stage === 'logits') return delta * Math.SQRT2;
  if (AFTER_SOFTMAX.has(stage)) return delta * Math.SQRT2 * Math.max(1, logitsRms);
  return 0;
}

/**
 * RMS relative error of the activations a llama.cpp CPU product quantizes to its weights' vec_dot_type: a block's
 * scale is max|x|/127 and its rounding uniform over one step, RMS step/√12, relative to the block's RMS by its crest
 * factor (max/RMS: ≈ 3 for 32 Gaussian values, ≈ 3.6 for 256); F16 / BF16 round to nearest (u/√3).
 */
const ACTIVATION_ERROR: Record<string, number> = {
  f32: 0,
  f16: unitRoundoff('float16') / Math.sqrt(3),
  bf16: unitRoundoff('bfloat16') / Math.sqrt(3),
  q8_0: 3 / (127 * Math.sqrt(12)),
  q8_k: 3.6 / (127 * Math.sqrt(12)),
};

/** How many quantized products lie upstream of each stage, on the longest branch (q_a → q_b → k_b; kv_a; then v_b and o_proj). */
const PRODUCTS_BEFORE: Partial<Record<StageName, number>> = {
  ...{ q_c_raw: 1, q_c: 1, q_full_prerope: 2, q_nope: 2, q_pe_raw: 2, q_pe: 2, q: 2, kv_lora: 1, kv_c: 1, kv_c_normed: 1 },
  ...{ k_pe_raw: 1, k_pe: 1, kv_cache: 1, ql_nope: 3, mqa_q: 3, kv_nope: 2, k_nope: 2, v: 2, k: 2, logits: 4, attn_probs: 4 },
  ...{ attn_out_latent: 5, attn_out_heads: 6, attn_out: 6, o_proj_out: 7 },
};

function activationTerm(activation: string | undefined, stage: StageName, logitsRms: number): number {
  const eps = ACTIVATION_ERROR[activation ?? 'f32'] ?? 0;
  const n = PRODUCTS_BEFORE[stage] ?? 0;
  if (!eps || !n) return 0;
  return eps * Math.sqrt(n) * (AFTER_SOFTMAX.has(stage) ? Math.max(1, logitsRms) : 1);
}
