import type { FaultName, FaultPath } from '../../core/faults/catalogue';
import type { ScalarName, ScalarValue } from '../../trace/stages';
import { runScenario } from '../run/run-scenario';
import type { CaseResult } from '../run/trace';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import type { Scenario } from '../scenario/scenario';
import { selftestCases } from '../selftest/cases';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { diagnose } from './diagnose';

/**
 * Each signature on a real run of its fault, then on the same trace with the evidence taken away:
 * the signature must stop matching the fault (or fall back to its generic cause), so a match is
 * the evidence's doing, not the fault name's.
 */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});

const caseOf = (fault: FaultName, path: FaultPath, schedule = 'prefill') =>
  selftestCases({ seeds: [4], shapes: ['tiny'] }).find(
    (c) => c.fault?.fault === fault && c.fault.path === path && c.name.endsWith(schedule),
  )!;

async function run(fault: FaultName, path: FaultPath, schedule?: string): Promise<{ s: Scenario; c: CaseResult }> {
  const s = parseScenario(caseOf(fault, path, schedule).yaml);
  const r = await expectNoLeak(rt, () => runScenario(s, { runtime: rt, toolVersion: 'test', worker: false }));
  return { s, c: r.cases[0]! };
}

/** The same result with one recorded scalar of `path` replaced in every piece. */
function withScalar(c: CaseResult, path: 'mha' | 'mqa', name: ScalarName, value: ScalarValue): CaseResult {
  const t = structuredClone(c.trace);
  for (const p of t.paths[path]!.pieces) p.scalars[name] = value;
  return { ...c, trace: t };
}
const again = (c: CaseResult, s: Scenario) => diagnose(c.trace, c.comparison, s.config);

describe('diagnosis signatures', () => {
  it('nothing to diagnose when the paths agree', async () => {
    const s = parseScenario(selftestCases({ seeds: [4], shapes: ['tiny'] }).find((x) => !x.fault)!.yaml);
    const c = (await expectNoLeak(rt, () => runScenario(s, { runtime: rt, toolVersion: 'test', worker: false }))).cases[0]!;
    expect(c.diagnosis).toEqual([]);
  });
  it('softmax scale: the recorded scale matched to (L+R)^-0.5; an unknown ratio is only "the scale differs"', async () => {
    const { s, c } = await run('softmax-scale-latent', 'mqa');
    expect(c.diagnosis[0]).toMatchObject({ cause: 'softmax-scale', matches: 'softmax-scale-latent' });
    const d = again(withScalar(c, 'mqa', 'softmax_scale', 0.1234), s);
    expect(d[0]).toMatchObject({ cause: 'softmax-scale' });
    expect(d[0]!.matches).toBeUndefined();
  });
  it('k_scale and the YaRN scales are told apart by their constants', async () => {
    for (const f of ['k-scale-bf16-cache', 'yarn-mscale-missing', 'yarn-log-mul-misread'] as const) {
      expect((await run(f, 'mha')).c.diagnosis[0]).toMatchObject({ cause: 'softmax-scale', matches: f });
    }
  });
  it('LSE base 2: the lse_base scalar; without it, still the ln 2 ratio, but no claim about which kernel', async () => {
    const { s, c } = await run('lse-base-2', 'mha');
    expect(c.diagnosis[0]).toMatchObject({ cause: 'lse-base', matches: 'lse-base-2' });
    const d = again(withScalar(c, 'mha', 'lse_base', 'e'), s);
    expect(d[0]).toMatchObject({ cause: 'lse-base' });
    expect(d[0]!.matches).toBeUndefined();
  });
  it('RoPE convention from rope_style; RoPE magnitude from a norm ratio equal to get_mscale(factor, mscale_all_dim)', async () => {
    const neox = await run('rope-neox', 'mha');
    expect(neox.c.diagnosis[0]).toMatchObject({ cause: 'rope-convention', matches: 'rope-neox' });
    expect(again(withScalar(neox.c, 'mha', 'rope_style', 'gptj'), neox.s).some((d) => d.matches === 'rope-neox')).toBe(false);
    expect((await run('rope-mscale-inflated', 'mqa')).c.diagnosis[0]).toMatchObject({
      cause: 'rope-magnitude',
      matches: 'rope-mscale-inflated',
    });
  });
  it('kv_a_layernorm skipped: ‖kv_c_normed‖ = ‖kv_c‖; W_UK_T scrambled: same norm as the reference, other places', async () => {
    expect((await run('kv-norm-skipped', 'mqa')).c.diagnosis[0]).toMatchObject({ cause: 'norm-skipped', matches: 'kv-norm-skipped' });
    expect((await run('w-uk-wrong-axis', 'mqa')).c.diagnosis[0]).toMatchObject({ cause: 'absorbed-weights', matches: 'w-uk-wrong-axis' });
  });
  it('serving: empty chunk +inf LSE (FA2 and NaN), merge layout (chunk records agree), split-KV combine (split LSEs agree)', async () => {
    const inf = await run('merge-inf-unhandled', 'mha', 'schedule-fa2');
    expect(inf.c.diagnosis[0]).toMatchObject({ cause: 'empty-context-lse', matches: 'merge-inf-unhandled' });
    // without the +inf evidence only the NaN's origin (and "only with context") remain
    expect(again(withScalar(inf.c, 'mha', 'empty_lse', '-inf'), inf.s).map((d) => d.cause)).toEqual(expect.arrayContaining(['nan-origin']));
    expect((await run('lse-layout-transposed', 'mha', 'schedule')).c.diagnosis[0]).toMatchObject({
      cause: 'merge-inputs',
      matches: 'lse-layout-transposed',
    });
    const split = await run('split-merge-base-2', 'mqa', 'schedule');
    expect(split.c.diagnosis[0]).toMatchObject({ cause: 'split-merge', matches: 'split-merge-base-2' });
    expect(again(withScalar(split.c, 'mqa', 'kv_splits', 1), split.s).some((d) => d.matches === 'split-merge-base-2')).toBe(false);
  });
});
