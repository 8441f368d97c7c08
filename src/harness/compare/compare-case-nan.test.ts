import type { StageRecord } from '../../core/probes/recorder';
import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { CaseTrace } from '../run/trace';
import type { Culprit } from '../scenario/scenario';
import type { Rel } from '../../test-utils/traces';
import { at, ONE_SHOT_STAGES, piece, stageRecord, stats } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import { WEIGHT_REL } from './tolerance';

const OK = 1e-7;
const BAD = 0.25;

/** Every stage of a one-shot prefill recorded and in agreement (weights exactly), with the reference unless told otherwise. */
function cleanDiffs(withReference = true, where: Partial<Where> = {}): PairDiff[] {
  return ONE_SHOT_STAGES.flatMap((s) => {
    const rel = STAGES[s].kind === 'weight' ? WEIGHT_REL : OK;
    return stagePairs(s, { engine: rel, mha: rel, mqa: rel }, { reference: withReference, where });
  });
}

/** `cleanDiffs` with the pairs of some stages replaced. */
function withStages(replacements: Partial<Record<StageName, PairDiff[]>>, withReference = true): PairDiff[] {
  return [...cleanDiffs(withReference).filter((d) => !(d.stage in replacements)), ...Object.values(replacements).flat()];
}

/** The trace with one path's record at `w` changed (added if the path lacks it). */
function patchRecord(trace: CaseTrace, path: PathName, w: Where, patch: Partial<Omit<StageRecord, keyof Where>>): CaseTrace {
  const t = trace.paths[path] ?? { path, precision: path === 'reference' ? 'float64' : 'float32', stages: [], pieces: [] };
  const same = (r: StageRecord) => r.step === w.step && r.request === w.request && r.stage === w.stage && r.chunk === w.chunk;
  const old = t.stages.find(same);
  const stages = old ? t.stages.map((r) => (same(r) ? { ...r, ...patch } : r)) : [...t.stages, stageRecord(w, 10, patch)];
  return { ...trace, paths: { ...trace.paths, [path]: { ...t, stages } } };
}

const label = (s: Where) => `${s.step}/${s.request}/${s.stage}${s.chunk === undefined ? '' : `[${s.chunk}]`}`;

describe('compareCase: NaN and invariants', () => {
  describe("NaN in a path's own values, where no pair compares it", () => {
    // With the reference off, the context stages (mha, reference) and split_lse (mqa, reference) have no pair.
    const pieces = [piece(0, 'a'), piece(1, 'a', { start: 3, chunks: 2 })];
    const clean = () =>
      caseTrace([...cleanDiffs(false, { step: 0, request: 'a' }), ...cleanDiffs(false, { step: 1, request: 'a' })], { pieces });
    const ctx = at('context_output', { step: 1, request: 'a', chunk: 1 });
    const split = at('split_lse', { step: 1, request: 'a' });

    it.each<[string, Where, PathName]>([
      ['context_output[1] in mha', ctx, 'mha'],
      ['split_lse in mqa', split, 'mqa'],
    ])('%s → nan-introduced, culprit that path', (_what, w, path) => {
      const c = compareCase(patchRecord(clean(), path, w, { stats: stats(3, { nanCount: 4 }) }), {});
      expect(c.stages.find((s) => label(s) === label(w))).toMatchObject({ verdict: 'nan-introduced', culprit: path, pairs: [] });
      expect(c.firstDivergence).toEqual({ ...w, verdict: 'nan-introduced', culprit: path, relErr: null, normRatio: null });
    });

    it('the NaN record is the first divergence though later records of the piece compare NaN pairs too', () => {
      const trace = patchRecord(clean(), 'mha', ctx, { stats: stats(3, { nanCount: 4 }) });
      const lse = trace.diffs.find((d) => d.step === 1 && d.stage === 'lse' && d.a === 'mha' && d.b === 'mqa')!;
      lse.nan = [4, 0];
      const c = compareCase(
        { ...trace, paths: patchRecord(trace, 'mha', at('lse', { step: 1, request: 'a' }), { stats: stats(3, { nanCount: 4 }) }).paths },
        {},
      );
      expect(c.stages.filter((s) => s.verdict !== 'ok').map(label)).toEqual(['1/a/context_output[1]', '1/a/lse']);
      expect(c.firstDivergence).toMatchObject({ ...ctx, verdict: 'nan-introduced', culprit: 'mha' });
      expect(c.stages.find((s) => s.stage === 'lse' && s.step === 1)).toMatchObject({ verdict: 'nan-introduced', culprit: 'mha' });
    });

    it('no NaN there → ok, though nothing is compared', () => {
      const c = compareCase(patchRecord(clean(), 'mha', ctx, {}), {});
      expect(c.stages.find((s) => label(s) === label(ctx))).toMatchObject({ verdict: 'ok', culprit: null, pairs: [] });
      expect(c.verdict).toBe('agree');
    });

    it("the reference's own NaN is not a finding", () => {
      expect(compareCase(patchRecord(clean(), 'reference', ctx, { stats: stats(3, { nanCount: 4 }) }), {}).verdict).toBe('agree');
    });
  });

  describe('invariant checks', () => {
    const lse = at('lse');
    const withCheck = (trace: CaseTrace, path: PathName, violations: number) =>
      patchRecord(trace, path, lse, {
        checks: [...(trace.paths[path]?.stages.find((r) => r.stage === 'lse')?.checks ?? []), { name: 'lse_bounds', violations }],
      });

    it.each<[string, PathName, Rel, Culprit]>([
      ['mha, every pair in tolerance', 'mha', {}, 'mha'],
      ['mqa, every pair in tolerance', 'mqa', {}, 'mqa'],
      ['mqa, though the reference blames mha', 'mqa', { engine: BAD, mha: BAD, mqa: OK }, 'mqa'],
    ])('a violation in %s → invariant-violated, culprit the violating path', (_what, path, rel, culprit) => {
      const trace = withCheck(caseTrace(withStages({ lse: stagePairs('lse', { engine: OK, mha: OK, mqa: OK, ...rel }) })), path, 3);
      const c = compareCase(trace, {});
      const v = c.stages.find((s) => s.stage === 'lse')!;
      expect(v).toMatchObject({ verdict: 'invariant-violated', culprit });
      expect(v.checks).toEqual([{ path, name: 'lse_bounds', violations: 3 }]);
      expect(c.firstDivergence).toMatchObject({ stage: 'lse', verdict: 'invariant-violated', culprit });
    });

    it('checks with no violations, in every path, leave the record ok', () => {
      let trace = caseTrace(cleanDiffs());
      for (const p of ['mha', 'mqa', 'reference'] as const) trace = withCheck(trace, p, 0);
      const c = compareCase(trace, {});
      expect(c.verdict).toBe('agree');
      expect(c.stages.find((s) => s.stage === 'lse')!.checks.map((k) => k.path)).toEqual(['mha', 'mqa', 'reference']);
    });

    it("the reference's own violations do not make a divergence", () => {
      expect(compareCase(withCheck(caseTrace(cleanDiffs()), 'reference', 2), {}).verdict).toBe('agree');
    });

    it('NaN outranks a violation at the same record', () => {
      const trace = withCheck(
        caseTrace(withStages({ lse: [pairDiff('lse', 'mha', 'mqa', OK, { nan: [0, 2] }), ...stagePairs('lse', {}).slice(1)] })),
        'mha',
        1,
      );
      expect(compareCase(trace, {}).firstDivergence).toMatchObject({ stage: 'lse', verdict: 'nan-introduced' });
    });
  });
});
