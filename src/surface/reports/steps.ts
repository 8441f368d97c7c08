import { judgedTolerance } from '../../harness/compare/compare';
import type { CaseResult, Origin, PairVerdict, PieceInfo, RunReport, StageVerdict } from '../../trace';
import { firstIntroduced, originOf, originSource } from '../../harness/compare/origin';
import { err } from './format';
import { caseOutcomeOf } from '../../harness/compare/outcome';

/**
 * The CI view of a case (JUnit, Markdown): one outcome per engine step. A step diverges when any
 * record of any of its pieces diverges. Whether it FAILS depends on what the scenario declares:
 * without `expect:`, a divergent step fails; with `expect:` met, every step passes (a planted
 * fault found where declared is a pass); with `expect:` not met, the divergent steps fail when the
 * scenario declared agreement, else the one step where the declared divergence was missed (the
 * actual first divergence's step, else the declared step, else the last step).
 */
export interface StepOutcome {
  step: number;
  /** The step's pieces that ran (cache fills excluded). */
  pieces: PieceInfo[];
  /** Its divergent records, in execution order. */
  divergent: StageVerdict[];
  failed: boolean;
  /** One line: why it fails, or what it found (null when it agrees and passes). */
  message: string | null;
}

export interface CaseOutcome {
  passed: boolean;
  /** The raw verdict in one line, regardless of `expect:`. */
  raw: string;
  steps: StepOutcome[];
}

/** `context_lse[chunk 0]`. */
export const recordLabel = (v: { stage: string; chunk?: number }): string =>
  `${v.stage}${v.chunk === undefined ? '' : `[chunk ${v.chunk}]`}`;
const at = (v: { stage: string; chunk?: number; step: number; request: string }) =>
  `${recordLabel(v)} (step ${v.step}, request ${v.request})`;

/** The pair a divergent record is measured by: the mha↔mqa pair when it fails, else the first failing pair. */
export function failingPair(v: StageVerdict): PairVerdict | null {
  const bad = v.pairs.filter((p) => p.verdict !== 'ok');
  return bad.find((p) => (p.a === 'mha' && p.b === 'mqa') || (p.a === 'mqa' && p.b === 'mha')) ?? bad[0] ?? null;
}

/** `rel err 3.3e-1 (mha↔mqa, tolerance 1.0e-5)`, or the violated invariants. */
export function measureText(v: StageVerdict): string {
  const p = failingPair(v);
  const checks = v.checks.filter((c) => c.violations > 0).map((c) => `${c.name} violated on ${c.path} (${c.violations})`);
  const rel = p ? `rel err ${err(p.relErr)}${p.normOnly ? ' (norms only)' : ''} (${p.a}↔${p.b}, tolerance ${err(judgedTolerance(v))})` : '';
  return [rel, ...checks].filter(Boolean).join('; ') || 'no pair measured';
}

/** The culprit as the report names it: an engine by its own name (llama.cpp); every other culprit as recorded. */
export const culpritText = (c: CaseResult, culprit: string | null | undefined): string =>
  culprit === 'external' && c.trace.external?.kind === 'engine' ? c.trace.external.name : (culprit ?? 'unknown');

/** The replay's word on a record, when a replay ran there. */
export const originText = (c: CaseResult, v: StageVerdict): Origin | null => originOf(c.replay, v);

/** One divergent record on one line: where, verdict, measure, culprit, origin. */
export function recordLine(c: CaseResult, v: StageVerdict): string {
  const origin = originText(c, v);
  return `${at(v)}: ${v.verdict}, ${measureText(v)}, culprit ${culpritText(c, v.culprit)}${origin ? `, ${origin}` : ''}`;
}

/** `first divergence at logits (step 0, request prompt): out-of-tolerance, culprit mqa; first introduced at …; likely cause: …`. */
export function firstDivergenceText(c: CaseResult): string | null {
  const f = c.comparison.firstDivergence;
  if (!f) return null;
  const intro = c.replay ? firstIntroduced(c.comparison, c.replay) : null;
  const introText = !c.replay
    ? ''
    : intro
      ? `; first introduced at ${at(intro)}`
      : `; ${originSource(c.replay)} found no introduced record`;
  const cause = c.diagnosis[0];
  const causeText = cause ? `; likely cause: ${cause.summary}` : '';
  return `first divergence at ${at(f)}: ${f.verdict}, culprit ${culpritText(c, f.culprit)}${introText}${causeText}`;
}

/** The raw verdict, whatever the scenario expects. */
export function rawVerdict(c: CaseResult): string {
  return firstDivergenceText(c) ?? `agree at ${c.comparison.stages.filter((v) => v.pairs.length).length} records`;
}

/** Steps of the case that ran, with their divergent records. */
function stepsOf(c: CaseResult): Omit<StepOutcome, 'failed' | 'message'>[] {
  const steps = [...new Set(c.trace.pieces.filter((p) => p.kind !== 'cached').map((p) => p.step))];
  return steps.map((step) => ({
    step,
    pieces: c.trace.pieces.filter((p) => p.step === step && p.kind !== 'cached'),
    divergent: c.comparison.stages.filter((v) => v.step === step && v.verdict !== 'ok'),
  }));
}

/** What a divergent step says: the case's first divergence when it holds it, else its own first record. */
function divergentMessage(c: CaseResult, s: Omit<StepOutcome, 'failed' | 'message'>): string {
  const f = c.comparison.firstDivergence;
  if (f && f.step === s.step) return firstDivergenceText(c)!;
  const v = s.divergent[0]!;
  const origin = originText(c, v);
  return (
    `diverges at ${at(v)}: ${v.verdict}, culprit ${culpritText(c, v.culprit)}${origin ? ` (${origin})` : ''}` +
    (f ? `; the case first diverges at ${at(f)}` : '')
  );
}

export function caseOutcome(r: RunReport, c: CaseResult): CaseOutcome {
  const base = stepsOf(c);
  const e = c.expectation;
  const expect = r.scenario.expect;
  const raw = rawVerdict(c);
  const o = caseOutcomeOf(r, c); // the one rule: src/harness/compare/outcome.ts
  if (!e || !expect || o.declared === null) {
    const steps = base.map((s) => ({ ...s, failed: s.divergent.length > 0, message: s.divergent.length ? divergentMessage(c, s) : null }));
    return { passed: o.outcome === 'pass', raw, steps };
  }
  const missed = `expectation not met (${e.misses.join('; ')})`;
  const f = c.comparison.firstDivergence;
  const blamed = f?.step ?? (base.some((s) => s.step === expect.step) ? expect.step : base[base.length - 1]?.step);
  const steps = base.map((s) => {
    const fails = !e.met && (expect.outcome === 'agree' ? s.divergent.length > 0 : s.step === blamed);
    const found = s.divergent.length ? divergentMessage(c, s) : null;
    return { ...s, failed: fails, message: fails ? `${missed}${found ? `: ${found}` : ''}` : found };
  });
  return { passed: o.outcome === 'pass', raw, steps };
}
