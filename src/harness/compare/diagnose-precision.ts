import type { FaultName } from '../../core/faults/catalogue';
import type { StageDtype } from '../../core/precision/formats';
import { FORMATS, shortDtype, unitRoundoff } from '../../core/precision/formats';
import type { StageName } from '../../trace/stages';
import { stageOrder } from '../../trace/stages';
import type { Signature } from './diagnose-detail';
import { fmt } from './diagnose-facts';

/**
 * Precision signatures: values that left a storage dtype's range (fp16 overflow to ±inf, fp8
 * saturation) at or before the first divergence, and an error the exact size of one rounding to a
 * narrower dtype than the path keeps the stage in (a tensor stored in the wrong dtype).
 */

/** Faults that store one stage in a narrower dtype than the engine's: the stage and that dtype. */
const NARROW: readonly [StageName, StageDtype, FaultName][] = [
  ['ql_nope', 'float16', 'absorbed-fp16'],
  ['suffix_lse', 'bfloat16', 'lse-bf16-merge'],
  ['chunk_lse', 'bfloat16', 'lse-bf16-merge'],
];

/** Overflow (→ ±inf) or saturation counted on the culprit at the first divergent record or before it in the piece. */
export const rangeSig: Signature = (f, _c, trace) => {
  if (!f.culprit) return null;
  const upTo = stageOrder(f.first.stage, f.first.chunk);
  const stages =
    trace.paths[f.culprit]?.stages.filter(
      (r) => r.step === f.first.step && r.request === f.first.request && stageOrder(r.stage, r.chunk) <= upTo,
    ) ?? [];
  const hit = stages.flatMap((r) =>
    (r.checks ?? []).filter((k) => (k.name === 'overflow' || k.name === 'saturated') && k.violations > 0).map((k) => ({ r, k })),
  )[0];
  if (!hit) return null;
  const { r, k } = hit;
  const dtype: StageDtype =
    k.name === 'saturated' ? 'fp8_e4m3' : (NARROW.find(([s]) => s === r.stage)?.[1] ?? trace.dtypes?.[f.culprit]?.[r.stage] ?? 'float16');
  const known = NARROW.find(([s, d]) => s === r.stage && d === dtype && trace.dtypes?.[f.culprit!]?.[r.stage] !== d);
  const at = `${r.stage}${r.chunk === undefined ? '' : `[${r.chunk}]`}`;
  const what =
    k.name === 'overflow'
      ? `${k.violations} value(s) of ${at} rounded past ` +
        `${shortDtype(dtype)}'s ±${fmt(FORMATS[dtype as Exclude<StageDtype, 'float32'>].max)} to ±inf`
      : `${k.violations} value(s) of ${at} clamped to ±448 by the fp8 cache`;
  return {
    cause: 'dtype-range',
    summary: known
      ? `${r.stage} stored in ${shortDtype(dtype)} ` +
        `although the model dtype is ${shortDtype(trace.dtypes?.[f.culprit]?.[r.stage] ?? 'float32')}: ${what}`
      : `${what}: the stage leaves its storage dtype's range`,
    evidence:
      `${k.name} ${k.violations} on ${f.culprit} at ${at}, max|x| ${fmt(r.stats.maxAbs)}; ` +
      `first divergence ${f.first.stage} (${f.first.verdict})`,
    ...(known ? { matches: known[2] } : {}),
  };
};

/** The first divergent record's error is one rounding to fp16 or bf16, where the culprit keeps the stage wider. */
export const narrowStorageSig: Signature = (f, _c, trace) => {
  const e = f.first.relErr;
  if (!f.culprit || e === null || !Number.isFinite(e)) return null;
  const kept: StageDtype = trace.dtypes?.[f.culprit]?.[f.first.stage] ?? 'float32';
  for (const d of ['float16', 'bfloat16'] as const) {
    const u = unitRoundoff(d);
    if (unitRoundoff(kept) >= u || e < 0.1 * u || e > u) continue;
    const known = NARROW.find(([s, nd]) => s === f.first.stage && nd === d);
    return {
      cause: 'narrow-storage',
      summary:
        `${f.first.stage} carries the error of one rounding to ${shortDtype(d)} (unit roundoff ${fmt(u)}) ` +
        `where the path keeps it in ${shortDtype(kept)}: stored in a narrower dtype`,
      evidence: `rel err ${fmt(e)} = ${fmt(e / u)} × 2^-${Math.round(-Math.log2(u))} at ${f.first.stage} on ${f.culprit}`,
      ...(known ? { matches: known[2] } : {}),
    };
  }
  return null;
};
