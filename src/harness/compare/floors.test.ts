import { recordKey } from '../../core/probes/recorder';
import type { StageName } from '../../trace/stages';
import type { PairDiff, Where } from '../run/diff';
import type { Rel } from '../../test-utils/traces';
import { at } from '../../test-utils/traces';
import { pairDiff, stagePairs } from '../../test-utils/pairs';
import { caseTrace } from '../../test-utils/case-traces';
import { compareCase } from './compare';
import type { NoiseFloor } from './floors';
import { MIN_FLOOR, noiseFloors, vsReference } from './floors';
import { toleranceFor, usesFloor, WEIGHT_REL } from './tolerance';

/** Floors of records given as (stage, pairs) in execution order, one piece unless `where` says. */
function floorsOf(records: [Where, PairDiff[]][]): NoiseFloor[] {
  const byKey = new Map(records.map(([w, d]) => [recordKey(w), d]));
  const f = noiseFloors(
    records.map(([w]) => w),
    (w) => byKey.get(recordKey(w)) ?? [],
    recordKey,
  );
  return records.map(([w]) => f.get(recordKey(w))!);
}
const rec = (
  stage: StageName,
  rel: Rel,
  opts: { reference?: boolean; cold?: boolean; where?: Partial<Where> } = {},
): [Where, PairDiff[]] => [
  at(stage, opts.where),
  stagePairs(stage, rel, { reference: opts.reference ?? true, cold: opts.cold ?? true, where: opts.where }),
];

describe('noise floors', () => {
  it('with the reference: relErr(cold, reference), whatever the engine paths do', () => {
    const [f] = floorsOf([rec('q_pe', { cold: 2e-7, mha: 3e-7, mqa: 0.5, engine: 0.5, mhaCold: 1e-7, mqaCold: 0.5 })]);
    expect(f).toEqual({ value: 2e-7, source: 'reference' });
  });

  it('never below the fp32 unit roundoff: an exact stage gets MIN_FLOOR, its source kept', () => {
    const [f] = floorsOf([rec('hidden_in', { cold: 0, mha: 0, mqa: 0, engine: 0 })]);
    expect(f).toEqual({ value: MIN_FLOOR, source: 'reference' });
    expect(MIN_FLOOR).toBeCloseTo(5.96e-8, 9);
  });

  it('with the reference, no cold: the smallest path error, so one wrong path does not raise it', () => {
    const [f] = floorsOf([rec('lse', { mha: 3e-7, mqa: 0.2, engine: 0.2 }, { cold: false })]);
    expect(f).toEqual({ value: 3e-7, source: 'best-path' });
  });

  it('a record one fp32 path has takes the largest floor upstream in its piece, not its own error', () => {
    const [, , ql, other] = floorsOf([
      rec('q_nope', { cold: 2e-7 }, { where: { request: 'a' } }),
      rec('kv_c', { cold: 4e-7 }, { where: { request: 'a' } }),
      rec('ql_nope', { mqa: 0.3 }, { where: { request: 'a' } }),
      rec('ql_nope', { mqa: 1e-7 }, { where: { request: 'b' } }),
    ]);
    expect(ql).toEqual({ value: 4e-7, source: 'upstream' });
    expect(other).toEqual({ value: MIN_FLOOR, source: 'minimum' }); // nothing upstream in piece b
  });

  it('without the reference: the smallest pairwise difference of three fp32 paths; a bug in one leaves it low', () => {
    const [f] = floorsOf([rec('logits', { engine: 0.4, mhaCold: 2e-7, mqaCold: 0.4 }, { reference: false })]);
    expect(f).toEqual({ value: 2e-7, source: 'paths' });
  });

  it('without the reference, two fp32 paths never set their own floor (it would judge them by themselves)', () => {
    const [, f] = floorsOf([
      rec('q', { engine: 3e-7 }, { reference: false, cold: true }),
      rec('kv_nope', { mhaCold: 0.4 }, { reference: false }),
    ]);
    expect(f?.source).toBe('upstream');
    const [g] = floorsOf([rec('q', { engine: 0.4 }, { reference: false, cold: false })]);
    expect(g).toEqual({ value: MIN_FLOOR, source: 'minimum' });
  });

  it('weight stages are exact rearrangements: the minimum', () => {
    const [f] = floorsOf([[at('W_UK_T'), [pairDiff('W_UK_T', 'mqa', 'reference', 0.3)]]]);
    expect(f).toEqual({ value: MIN_FLOOR, source: 'minimum' });
  });

  it('a NaN-bearing or infinite measure is not noise: the next source is used', () => {
    const [w, d] = rec('lse', { cold: Infinity, mha: 2e-7, mqa: 3e-7 });
    expect(floorsOf([[w, d]])[0]).toEqual({ value: 2e-7, source: 'best-path' });
    const nan = d.map((x) => (x.a === 'cold' ? { ...x, relErr: 1e-7, nan: [2, 0] as [number, number] } : x));
    expect(floorsOf([[w, nan]])[0]!.source).toBe('best-path');
  });

  it('vsReference: each fp32 path against the reference, the paths measured there', () => {
    expect(vsReference(stagePairs('lse', { mha: 1e-7, mqa: 2e-7, cold: 3e-7 }, { cold: true }))).toEqual({
      mha: 1e-7,
      mqa: 2e-7,
      cold: 3e-7,
    });
    expect(vsReference(stagePairs('lse', { engine: 1e-7 }, { reference: false }))).toEqual({});
  });
});

describe('floor-based tolerances', () => {
  const FLOOR = 2e-7;
  /** Every stage of a prefill with cold and the reference: floors FLOOR, mqa `mqaErr` at `stage`. */
  const diffs = (stage: StageName, mqaErr: number) =>
    (['q', 'ql_nope', 'logits', 'lse', 'W_UK_T'] as StageName[]).flatMap((s) =>
      stagePairs(
        s,
        s === 'W_UK_T'
          ? {}
          : {
              cold: FLOOR,
              mha: FLOOR,
              mqa: s === stage ? mqaErr : FLOOR,
              engine: s === stage ? mqaErr : FLOOR,
              mhaCold: 0,
              mqaCold: s === stage ? mqaErr : FLOOR,
            },
        { cold: true },
      ),
    );

  it.each<[number, 'agree' | 'diverge']>([
    [7.9, 'agree'],
    [8.1, 'diverge'],
  ])('mqa at %s × the floor of logits under {floor: 8} → %s', (times, verdict) => {
    const c = compareCase(caseTrace(diffs('logits', times * FLOOR)), { default: { floor: 8 } });
    expect(c.verdict).toBe(verdict);
    const v = c.stages.find((s) => s.stage === 'logits')!;
    expect(v).toMatchObject({
      floorMultiple: 8,
      floor: { value: FLOOR, source: 'reference' },
      vsReference: { mha: FLOOR, mqa: times * FLOOR, cold: FLOOR },
    });
    expect(v.tolerance).toBeCloseTo(8 * FLOOR, 15);
    if (verdict === 'diverge') expect(c.firstDivergence).toMatchObject({ stage: 'logits', culprit: 'mqa' });
  });

  it('a bug at a record only mqa has is caught: its floor comes from upstream, not from its own error', () => {
    const c = compareCase(caseTrace(diffs('ql_nope', 1e-3)), { default: { floor: 8 } });
    expect(c.firstDivergence).toMatchObject({ stage: 'ql_nope', culprit: 'mqa' });
    expect(c.stages.find((s) => s.stage === 'ql_nope')!.floor).toEqual({ value: FLOOR, source: 'upstream' });
  });

  it('mixes with relative bounds; weight stages stay exact unless a stage rule says otherwise', () => {
    const c = compareCase(caseTrace(diffs('logits', 1e-6)), { default: { floor: 8 }, stages: { logits: 1e-5 } });
    expect(c.verdict).toBe('agree');
    const logits = c.stages.find((s) => s.stage === 'logits')!;
    expect(logits.tolerance).toBe(1e-5);
    expect(logits.floorMultiple).toBeUndefined();
    expect(c.stages.find((s) => s.stage === 'W_UK_T')!.tolerance).toBe(WEIGHT_REL);
    expect(toleranceFor('W_UK_T', { stages: { W_UK_T: { floor: 2 } } }, 'float32', MIN_FLOOR)).toBe(2 * MIN_FLOOR);
  });

  it('the default judging is unchanged and still reports the floor', () => {
    const c = compareCase(caseTrace(diffs('logits', 9e-6)), {});
    expect(c.verdict).toBe('agree');
    expect(c.stages.find((s) => s.stage === 'logits')).toMatchObject({ tolerance: 1e-5, floor: { value: FLOOR, source: 'reference' } });
  });

  it('usesFloor: any floor-based rule', () => {
    expect(usesFloor({})).toBe(false);
    expect(usesFloor({ default: 1e-5, stages: { lse: 1e-4 } })).toBe(false);
    expect(usesFloor({ stages: { lse: { floor: 4 } } })).toBe(true);
  });
});
