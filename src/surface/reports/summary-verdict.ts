/** A case's verdict line in the text summary: PASS with its largest error, or FAIL at the first divergence and who is wrong. */
import { firstIntroduced, originSource } from '../../harness/compare/origin';
import { recordKey } from '../../core/probes/recorder';
import { judgedTolerance } from '../../harness/compare/compare';
import type { CaseResult, StageVerdict } from '../../trace';
import type { PartOutcome } from '../../harness/compare/outcome';
import { floorBased, floorRatio, floorText, toleranceText } from './floors';
import { outcomeNote } from './outcome-text';
import { failingPair } from './steps';
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

/** A record whose every failing pair is within this many noise floors, under a tolerance below as many: fp32 noise, not a bug. */
export const NOISE_FLOORS = 4;

/** The failing pair measured at the first divergent record: its name, error and tolerance (not the engine pair's when it passed). */
function failedPair(v: StageVerdict | undefined): { text: string; noise: string | null } | null {
  const p = v && failingPair(v);
  if (!v || !p) return null;
  const tol = judgedTolerance(v);
  const text = `; ${p.a}↔${p.b} rel err ${err(p.relErr)}${p.normOnly ? ' (norms only)' : ''}, tolerance ${toleranceText(v)}`;
  const floor = v.floor.value;
  const bad = v.pairs.filter((x) => x.verdict !== 'ok');
  const inNoise =
    v.verdict === 'out-of-tolerance' &&
    v.culprit !== 'cold' && // the floor is measured on the cold path: it says nothing when cold is the one wrong
    tol < NOISE_FLOORS * floor &&
    bad.every((x) => x.relErr !== null && Number.isFinite(x.relErr) && x.relErr <= NOISE_FLOORS * floor);
  const noise = inNoise
    ? `the tolerance ${err(tol)} is below this record's noise floor: fp32 rounding, not a bug (judge with {floor: k} or a looser bound)`
    : null;
  return { text, noise };
}

/**
 * PASS or FAIL under the rule (o, src/harness/compare/outcome.ts; without it, by agreement): what agreed, or where the paths
 * first part, the failing pair and its tolerance, and which path is to blame (or that the tolerance is under fp32 noise).
 * `declared`: what `expect:` declares, for the note after the word.
 */
export function verdictLine(c: CaseResult, s: Style, o?: PartOutcome, declared?: string): string {
  const cmp = c.comparison;
  const rule: PartOutcome = o ?? { outcome: cmp.verdict === 'agree' ? 'pass' : 'fail', declared: null, verdict: cmp.verdict, misses: [] };
  const note = outcomeNote(rule, declared);
  const word = `${rule.outcome === 'pass' ? 'PASS' : 'FAIL'} ${c.trace.name}${note ? ` (${note})` : ''}`;
  const paint = (x: string) => (rule.outcome === 'pass' ? s.ok(x) : s.bad(x));
  const paths = pathsOf(c)
    .map((p) => pathLabel(c, p))
    .join(' ≡ ');
  const compared = cmp.stages.filter((v) => v.pairs.length).length;
  if (cmp.verdict === 'agree') {
    const w = cmp.worstEngine;
    return (
      paint(`${word}: ${paths} at ${compared} records of ${c.trace.pieces.filter((p) => p.kind !== 'cached').length} piece(s)`) +
      (w ? `; largest mha↔mqa error ${err(w.relErr)} at ${w.stage} (step ${w.step}, ${w.request})` : '') +
      worstExternal(c) +
      worstRatio(c) +
      normOnlyNote(c)
    );
  }
  const f = cmp.firstDivergence!;
  const at = `${stageLabel(f)}, step ${f.step}, request ${f.request}`;
  const v = cmp.stages.find((x) => recordKey(x) === recordKey(f));
  if (f.culprit === 'external') {
    const how = c.trace.diffs.find(
      (d) => d.a === 'external' && d.step === f.step && d.request === f.request && d.stage === f.stage && d.chunk === f.chunk,
    )?.normOnly
      ? ' (norms only: the error is at least this)'
      : '';
    return (
      paint(`${word}: first divergence at ${at} (${f.verdict}) — ` + `${pathLabel(c, 'external')} departs from paths that agree`) +
      (f.relErr === null ? '' : `; rel err ${err(f.relErr)}${how}, norm ratio ${num(f.normRatio)}`) +
      externalBound(v) +
      introducedText(c)
    );
  }
  const pair = f.verdict === 'out-of-tolerance' ? failedPair(v) : null;
  const measure =
    f.verdict === 'nan-introduced'
      ? '; NaN first appears here'
      : f.verdict === 'shape-mismatch'
        ? ''
        : pair
          ? `${pair.text}, norm ratio ${num(f.normRatio)}`
          : `; rel err ${err(f.relErr)}, norm ratio ${num(f.normRatio)}`;
  const floor = v && f.verdict === 'out-of-tolerance' ? `; floor ${floorText(v)}${ratioText(v)}` : '';
  const headline = paint(`${word}: first divergence at ${at} (${f.verdict}) — ${pair?.noise ?? WHO[f.culprit]}`);
  return headline + measure + floor + introducedText(c);
}

/** `, err/floor 0.83` of the record's failing pair. */
function ratioText(v: StageVerdict): string {
  const p = failingPair(v);
  return p?.relErr === null || p?.relErr === undefined ? '' : `, err/floor ${num(p.relErr / v.floor.value)}`;
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
