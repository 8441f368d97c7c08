import type { PathName, StageName } from '../../trace/stages';
import type { PairDiff } from '../run/diff';
import { caseTrace } from '../../test-utils/case-traces';
import { pairDiff } from '../../test-utils/pairs';
import { compareCase } from './compare';
import { diagnosisView, firstIntroduced, originOf } from './origin';
import { externalOrigins, withExternalOrigins } from './origin-external';

const BAD = 0.3;
/** Our paths agree at every stage they record; the third party's pair with the reference at `ext` (relErr per stage). */
function traceOf(ours: StageName[], ext: Partial<Record<StageName, number>>) {
  const diffs: PairDiff[] = [];
  for (const s of ours) {
    const paths: PathName[] = s === 'W_UV' || s === 'mqa_q' ? ['mqa'] : s === 'k' ? ['mha'] : ['mha', 'mqa'];
    if (paths.length === 2) diffs.push(pairDiff(s, 'mha', 'mqa', 1e-7));
    for (const p of paths) diffs.push(pairDiff(s, p, 'reference', 1e-7));
  }
  for (const [s, e] of Object.entries(ext) as [StageName, number][]) diffs.push(pairDiff(s, 'external', 'reference', e));
  return caseTrace(diffs);
}
const cmpOf = (t: ReturnType<typeof traceOf>) => compareCase(t, { default: 1e-5 });

describe('origins of third-party records, from its own records', () => {
  // The node backend's w-uv-wrong-axis: q, k and the latent agree, v on.
  const t = traceOf(['kv_c_normed', 'W_UV', 'kv_nope', 'v', 'logits', 'attn_out_heads'], {
    kv_c_normed: 1e-9,
    v: BAD,
    attn_out_heads: BAD,
  });
  const cmp = cmpOf(t);

  it('introduced where its inputs agree and its output does not (v: kv_c_normed, through kv_nope, which it need not have)', () => {
    const o = externalOrigins(t, cmp);
    expect(o.map((r) => [r.stage, r.origin, r.path, r.mode])).toEqual([
      ['v', 'introduced', 'external', 'records'],
      ['attn_out_heads', 'inherited', 'external', 'records'],
    ]);
    expect(o[0]).toMatchObject({ source: 'reference', relErrAfter: null, inputs: [{ stage: 'kv_c_normed', from: 'reference' }] });
    // kv_nope (the expanded formulation's alone) it did not record: looked through to kv_c_normed
    expect(o[0]!.reason).toBe("inputs kv_c_normed agree (mha's dataflow, through kv_nope, which it did not record)");
    expect(o[1]!.reason).toMatch(/input v diverges/);
  });

  it('joined to the origin data: originOf, firstIntroduced and the diagnosis view read them as a replay', () => {
    const replay = withExternalOrigins(undefined, t, cmp)!;
    expect(replay).toMatchObject({ runs: 0, seconds: 0 });
    expect(
      originOf(
        replay,
        cmp.stages.find((v) => v.stage === 'attn_out_heads')!,
      ),
    ).toBe('inherited');
    expect(firstIntroduced(cmp, replay)?.stage).toBe('v');
    expect(diagnosisView(cmp, replay).firstDivergence).toMatchObject({ stage: 'v', culprit: 'external' });
    // joined again (rejudge): the earlier record origins are replaced, not doubled; a replay's own results are kept
    const mha = { ...replay.results[0]!, stage: 'kv_nope' as const, path: 'mha' as const, mode: undefined };
    const again = withExternalOrigins({ ...replay, runs: 1, results: [...replay.results, mha] }, t, cmp)!;
    expect(again.results.map((r) => `${r.stage}:${r.path}`)).toEqual(['kv_nope:mha', 'v:external', 'attn_out_heads:external']);
    expect(again.runs).toBe(1);
  });

  it('inherited when an input it recorded diverges: the first divergence itself then came from upstream', () => {
    const up = traceOf(['kv_c_normed', 'W_UV', 'v'], { kv_c_normed: BAD, v: BAD });
    expect(externalOrigins(up, cmpOf(up)).map((r) => [r.stage, r.origin])).toEqual([
      ['kv_c_normed', 'introduced'],
      ['v', 'inherited'],
    ]);
  });

  it('undetermined when an input every formulation has is missing from its records (q_pe), naming it', () => {
    const u = traceOf(['q_nope', 'q_pe', 'k', 'mqa_q', 'logits'], { q_nope: 1e-9, logits: BAD });
    const [o] = externalOrigins(u, cmpOf(u));
    expect(o).toMatchObject({ stage: 'logits', origin: 'undetermined' });
    expect(o!.reason).toMatch(/^q_pe not recorded by the third party/);
    // with q_pe recorded, k (the expanded formulation's) is looked through: its inputs k_nope, k_pe no path recorded
    const k = traceOf(['q_nope', 'q_pe', 'k', 'logits'], { q_nope: 1e-9, q_pe: 1e-9, logits: BAD });
    expect(externalOrigins(k, cmpOf(k))[0]).toMatchObject({ origin: 'introduced', reason: expect.stringContaining('through k,') });
    expect(firstIntroduced(cmpOf(u), withExternalOrigins(undefined, u, cmpOf(u)))).toBeNull();
  });

  it('nothing to join without a third-party culprit: the replay as it was', () => {
    const clean = traceOf(['q_nope'], { q_nope: 1e-9 });
    expect(externalOrigins(clean, cmpOf(clean))).toEqual([]);
    expect(withExternalOrigins(undefined, clean, cmpOf(clean))).toBeUndefined();
  });
});
