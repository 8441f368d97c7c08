/** A case's verdict line in the text summary: PASS with its largest error, or FAIL at the first divergence and who is wrong. */
import { firstIntroduced, originSource } from '../../harness/compare/origin';
import { recordKey } from '../../core/probes/recorder';
import { judgedTolerance } from '../../harness/compare/compare';
import type { CaseResult, StageVerdict } from '../../trace';
import { floorBased, floorClause, floorRatio, floorText } from './floors';
import { err, num } from './format';
import type { Style } from './style';
import { pathLabel, pathsOf } from './table';

/** `context_lse[chunk 1]`: a record's stage, with its chunk when it has one. */
export const stageLabel = (f: { stage: string; chunk?: number }) => `${f.stage}${f.chunk === undefined ? '' : `[chunk ${f.chunk}]`}`;

const WHO: Record<string, string> = {
  mha: 'mha is the wrong path',
  mqa: 'mqa is the wrong path',
  cold: 'the cold fp32 path disagrees',
  both: 'mha and mqa are both wrong',
  shared: 'mha and mqa agree with each other but not with the reference: shared code',
  external: 'the external path departs from paths that agree',
  unknown: 'no reference or majority to tell which path',
};

/** Honesty about norm-only records: their agreement bounds the norms, not the values. */
function normOnlyNote(c: CaseResult): string {
  const n = c.trace.external?.statsOnly ?? 0;
  return n
    ? `; ${pathLabel(c, 'external')} known by norms only at ${n} record(s): ` + '‖a‖ and ‖b‖ agree there, the values are unchecked'
    : '';
}

/** PASS or FAIL: what agreed, or where the paths first part, how far, and which path is to blame. */
export function verdictLine(c: CaseResult, s: Style): string {
  const cmp = c.comparison;
  const paths = pathsOf(c)
    .map((p) => pathLabel(c, p))
    .join(' ≡ ');
  const compared = cmp.stages.filter((v) => v.pairs.length).length;
  if (cmp.verdict === 'agree') {
    const w = cmp.worstEngine;
    return (
      s.ok(
        `PASS ${c.trace.name}: ${paths} at ${compared} records of ${c.trace.pieces.filter((p) => p.kind !== 'cached').length} piece(s)`,
      ) +
      (w ? `; largest mha↔mqa error ${err(w.relErr)} at ${w.stage} (step ${w.step}, ${w.request})` : '') +
      worstExternal(c) +
      worstRatio(c) +
      normOnlyNote(c)
    );
  }
  const f = cmp.firstDivergence!;
  const at = `${stageLabel(f)}, step ${f.step}, request ${f.request}`;
  if (f.culprit === 'external') {
    const how = c.trace.diffs.find(
      (d) => d.a === 'external' && d.step === f.step && d.request === f.request && d.stage === f.stage && d.chunk === f.chunk,
    )?.normOnly
      ? ' (norms only: the error is at least this)'
      : '';
    return (
      s.bad(
        `FAIL ${c.trace.name}: first divergence at ${at} (${f.verdict}) — ` + `${pathLabel(c, 'external')} departs from paths that agree`,
      ) +
      (f.relErr === null ? '' : `; rel err ${err(f.relErr)}${how}, norm ratio ${num(f.normRatio)}`) +
      externalBound(cmp.stages.find((x) => recordKey(x) === recordKey(f))) +
      introducedText(c)
    );
  }
  const measure =
    f.verdict === 'nan-introduced'
      ? '; NaN first appears here'
      : f.verdict === 'shape-mismatch'
        ? ''
        : `; rel err ${err(f.relErr)}, norm ratio ${num(f.normRatio)}`;
  const v = cmp.stages.find((x) => recordKey(x) === recordKey(f));
  const floor = v && f.verdict === 'out-of-tolerance' ? `; ${floorClause(v)}` : '';
  const headline = s.bad(`FAIL ${c.trace.name}: first divergence at ${at} (${f.verdict}) — ${WHO[f.culprit]}`);
  return headline + measure + floor + introducedText(c);
}

/**
 * A passing case's largest third-party error: its worst relative error against the float64 reference (against the paths it
 * meets, without one), where, and the bound it stayed under there (StageVerdict.externalTolerance, else the record's).
 */
function worstExternal(c: CaseResult): string {
  if (!c.trace.paths.external) return '';
  const all = c.comparison.stages.flatMap((v) =>
    v.pairs
      .filter((p) => p.a === 'external' && !p.normOnly && p.relErr !== null && Number.isFinite(p.relErr))
      .map((p) => ({ v, b: p.b, e: p.relErr! })),
  );
  const ref = all.filter((x) => x.b === 'reference');
  const worst = (ref.length ? ref : all).reduce<(typeof all)[number] | null>((w, x) => (!w || x.e > w.e ? x : w), null);
  if (!worst) return '';
  const { v } = worst;
  return (
    `; largest ${pathLabel(c, 'external')} error ${err(worst.e)} vs ${worst.b} at ${stageLabel(v)} ` +
    `(step ${v.step}, ${v.request}; tolerance ${err(v.externalTolerance ?? v.tolerance)})`
  );
}

/** A failing third party's bound at its first divergence: its tolerance and its noise floor (StageVerdict fields, not recomputed). */
function externalBound(v: StageVerdict | undefined): string {
  if (!v) return '';
  const floor = v.externalFloor !== undefined ? err(v.externalFloor) : floorText(v);
  return `; its tolerance ${err(judgedTolerance(v))}, its floor ${floor}`;
}

/** With floor-based tolerances, a passing case's largest error in units of its floor, and the k it had to stay under. */
function worstRatio(c: CaseResult): string {
  if (!floorBased(c.comparison.stages)) return '';
  let worst: { r: number; stage: string; k: number } | null = null;
  for (const v of c.comparison.stages) {
    const r = floorRatio(v);
    if (r !== null && v.floorMultiple !== undefined && (!worst || r > worst.r)) worst = { r, stage: stageLabel(v), k: v.floorMultiple };
  }
  return worst ? `; largest err/floor ${num(worst.r)} at ${worst.stage} (tolerance ${num(worst.k)}×floor)` : '';
}

/** `; first introduced at …` after a stage replay (the place itself, when it is not the first divergence). */
function introducedText(c: CaseResult): string {
  if (!c.replay) return '';
  const v = firstIntroduced(c.comparison, c.replay);
  if (!v) return `; ${originSource(c.replay)} found no introduced record`;
  const f = c.comparison.firstDivergence!;
  const same = v.step === f.step && v.request === f.request;
  return `; first introduced at ${stageLabel(v)}${same ? '' : `, step ${v.step}, request ${v.request}`}`;
}
