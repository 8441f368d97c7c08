import type { CaseResult, StageVerdict } from '../../trace';
import { isInvariant } from '../../core/probes/probe';
import type { DevicePath } from '../../trace/stages';
import { shortDtype } from '../../core/precision/formats';
import type { StageDtype } from '../../core/precision/formats';

/**
 * The precision columns of the norm-trace table: each stage's storage dtype on the engine paths,
 * and the values that left the dtype's range there (fp16/bf16 overflow to ±inf, fp8 saturation).
 */

/** Whether the case rounds anywhere (a dtype column is then shown). */
export const hasDtypes = (c: CaseResult): boolean => c.trace.dtypes !== undefined;

const dtypeOf = (c: CaseResult, path: DevicePath, v: StageVerdict): StageDtype | null =>
  c.trace.paths[path]?.stages.some((r) => r.stage === v.stage) ? (c.trace.dtypes?.[path]?.[v.stage] ?? 'float32') : null;

/** `bf16` when mha and mqa keep the stage alike, `fp32/bf16` (mha/mqa) when they differ, one side where only one has it. */
export function dtypeCell(c: CaseResult, v: StageVerdict): string {
  const [a, b] = [dtypeOf(c, 'mha', v), dtypeOf(c, 'mqa', v)];
  if (a && b) return a === b ? shortDtype(a) : `${shortDtype(a)}/${shortDtype(b)}`;
  const one = a ?? b ?? dtypeOf(c, 'cold', v);
  return one ? shortDtype(one) : '—';
}

/** Counts of values past the range at a record, e.g. `mqa 312 inf`; empty when none. */
export function rangeText(v: StageVerdict): string {
  return v.checks
    .filter((x) => !isInvariant(x.name) && x.violations > 0 && x.path !== 'reference')
    .map((x) => `${x.path} ${x.violations} ${x.name === 'overflow' ? '→inf' : 'sat'}`)
    .join(', ');
}

/** Whether any record of the case has values past the range (a column is then shown). */
export const hasRange = (c: CaseResult): boolean => c.comparison.stages.some((v) => rangeText(v) !== '');

export const DTYPE_LEGEND =
  'dtype: storage dtype of the stage on mha/mqa (one value when alike); ' +
  "past range: values that rounded past the dtype's largest finite value (→inf) or were clamped by an fp8 cache (sat)";
