import type { FaultName } from '../../core/faults/catalogue';
import type { StageDtype } from '../../core/precision/formats';
import { FORMATS, shortDtype, unitRoundoff } from '../../core/precision/formats';
import type { CaseTrace, CheckName, StageRecord } from '../../trace';
import type { StageName } from '../../trace/stages';
import { stageOrder } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import type { Facts } from './diagnose-facts';
import { culpritName, fmt } from './diagnose-facts';

/**
 * Precision signatures: values that left a storage dtype's range (fp16 overflow to ±inf, fp8
 * saturation) at or before the first divergence, and an error the exact size of one rounding to a
 * narrower dtype than the path keeps the stage in (a tensor stored in the wrong dtype). A third party: from its statistics.
 */

/** Faults that store one stage in a narrower dtype than the engine's: the stage and that dtype. */
const NARROW: readonly [StageName, StageDtype, FaultName][] = [
  ['ql_nope', 'float16', 'absorbed-fp16'],
  ['suffix_lse', 'bfloat16', 'lse-bf16-merge'],
  ['chunk_lse', 'bfloat16', 'lse-bf16-merge'],
];

/** The dtype a path keeps a stage in: our plan's (trace.dtypes), a third party's declared precision, else float32. */
function keptDtype(trace: CaseTrace, path: Facts['culprit'], stage: StageName): StageDtype {
  if (path !== 'external') return (path && trace.dtypes?.[path]?.[stage]) ?? 'float32';
  const p = trace.external?.precision;
  return p === 'float16' || p === 'bfloat16' ? p : 'float32';
}

type Hit = { r: StageRecord; k: { name: CheckName; violations: number | null } };

/**
 * A third party runs no probe checks: its statistics against the witness's tell the same. Infinities the witness does not
 * have where the witness's max |x| is past fp16's range (an fp16 overflow); a max of exactly 448 where the witness's is
 * larger (fp8 e4m3 saturation; how many values were clamped is not known: null).
 */
function statsHits(f: Facts, records: StageRecord[]): Hit[] {
  return records.flatMap((r): Hit[] => {
    const w = f.witness ? f.stats(f.witness, r.stage, r.chunk) : undefined;
    if (!w) return [];
    if (r.stats.infCount > w.infCount && w.maxAbs > FORMATS.float16.max)
      return [{ r, k: { name: 'overflow', violations: r.stats.infCount - w.infCount } }];
    return r.stats.maxAbs === FORMATS.fp8_e4m3.max && w.maxAbs > FORMATS.fp8_e4m3.max
      ? [{ r, k: { name: 'saturated', violations: null } }]
      : [];
  });
}

/** Overflow (→ ±inf) or saturation counted on the culprit at the first divergent record or before it in the piece. */
export const rangeSig: Signature = (f, _c, trace) => {
  if (!f.culprit) return null;
  const upTo = stageOrder(f.first.stage, f.first.chunk);
  const stages =
    trace.paths[f.culprit]?.stages.filter(
      (r) => r.step === f.first.step && r.request === f.first.request && stageOrder(r.stage, r.chunk) <= upTo,
    ) ?? [];
  const hit =
    f.culprit === 'external'
      ? statsHits(f, stages)[0]
      : stages.flatMap((r) =>
          (r.checks ?? []).filter((k) => (k.name === 'overflow' || k.name === 'saturated') && k.violations > 0).map((k) => ({ r, k })),
        )[0];
  if (!hit) return null;
  const { r, k } = hit;
  const kept = keptDtype(trace, f.culprit, r.stage);
  const dtype: StageDtype =
    k.name === 'saturated' ? 'fp8_e4m3' : (NARROW.find(([s]) => s === r.stage)?.[1] ?? (kept === 'float32' ? 'float16' : kept));
  const known = NARROW.find(([s, d]) => s === r.stage && d === dtype && kept !== d);
  const at = `${r.stage}${r.chunk === undefined ? '' : `[${r.chunk}]`}`;
  const n = k.violations === null ? 'values' : `${k.violations} value(s)`;
  const what =
    k.name === 'overflow'
      ? `${n} of ${at} rounded past ${shortDtype(dtype)}'s ±${fmt(FORMATS[dtype as Exclude<StageDtype, 'float32'>].max)} to ±inf`
      : `${n} of ${at} clamped to ±448 by the fp8 cache`;
  const counted =
    f.culprit === 'external'
      ? `${k.name} on ${culpritName(f, trace)} at ${at} (its max|x| ${fmt(r.stats.maxAbs)}, ${r.stats.infCount} inf; ` +
        `${f.witness}'s max|x| ${fmt(f.stats(f.witness!, r.stage, r.chunk)!.maxAbs)})`
      : `${k.name} ${k.violations} on ${f.culprit} at ${at}, max|x| ${fmt(r.stats.maxAbs)}`;
  return {
    cause: 'dtype-range',
    summary: known
      ? `${r.stage} stored in ${shortDtype(dtype)} although the model dtype is ${shortDtype(kept)}: ${what}`
      : `${what}: the stage leaves its storage dtype's range`,
    evidence: `${counted}; first divergence ${f.first.stage} (${f.first.verdict})`,
    ...(known ? { matches: known[2] } : {}),
  };
};

/** The first divergent record's error is one rounding to fp16 or bf16, where the culprit keeps the stage wider. */
export const narrowStorageSig: Signature = (f, _c, trace) => {
  const e = f.first.relErr;
  if (!f.culprit || e === null || !Number.isFinite(e)) return null;
  const kept = keptDtype(trace, f.culprit, f.first.stage);
  for (const d of ['float16', 'bfloat16'] as const) {
    const u = unitRoundoff(d);
    if (unitRoundoff(kept) >= u || e < 0.1 * u || e > u) continue;
    const known = NARROW.find(([s, nd]) => s === f.first.stage && nd === d);
    return {
      cause: 'narrow-storage',
      summary:
        `${f.first.stage} carries the error of one rounding to ${shortDtype(d)} (unit roundoff ${fmt(u)}) ` +
        `where the path keeps it in ${shortDtype(kept)}: stored in a narrower dtype`,
      evidence: `rel err ${fmt(e)} = ${fmt(e / u)} × 2^-${Math.round(-Math.log2(u))} at ${f.first.stage} on ${culpritName(f, trace)}`,
      ...(known ? { matches: known[2] } : {}),
    };
  }
  return null;
};
