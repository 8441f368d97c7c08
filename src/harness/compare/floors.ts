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
