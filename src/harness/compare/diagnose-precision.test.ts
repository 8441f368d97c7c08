import type { FaultName, FaultPath } from '../../core/faults/catalogue';
import { runScenario } from '../run/run-scenario';
import type { CaseResult } from '../run/trace';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import type { Scenario } from '../scenario/scenario';
import { selftestCases } from '../selftest/cases';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { diagnose } from './diagnose';

/** The precision signatures on real runs of the planted precision faults, then with their evidence taken away. */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});

async function runYaml(yaml: string): Promise<{ s: Scenario; c: CaseResult }> {
  const s = parseScenario(yaml);
  const r = await expectNoLeak(rt, () => runScenario(s, { runtime: rt, toolVersion: 'test', worker: false }));
  return { s, c: r.cases[0]! };
}
const selftest = (fault: FaultName, path: FaultPath, schedule: string) =>
  selftestCases({ seeds: [4], shapes: ['tiny'] }).find(
    (x) => x.fault?.fault === fault && x.fault.path === path && x.name.endsWith(schedule),
  )!.yaml;
const again = (c: CaseResult, s: Scenario) => diagnose(c.trace, c.comparison, s.config, c.detail);

describe('precision signatures', () => {
  it('fp32: ql_nope off by one fp16 rounding is named as stored in fp16 (absorbed-fp16); an error of another size is not', async () => {
    const { s, c } = await runYaml(selftest('absorbed-fp16', 'mqa', 'prefill'));
    expect(c.comparison.firstDivergence).toMatchObject({ stage: 'ql_nope', culprit: 'mqa' });
    expect(again(c, s)[0]).toMatchObject({ cause: 'narrow-storage', matches: 'absorbed-fp16' });
    const bigger = structuredClone(c);
    bigger.comparison.firstDivergence!.relErr = 0.05;
    expect(again(bigger, s).some((d) => d.cause === 'narrow-storage')).toBe(false);
  });

  it('fp32 with context: partial LSEs rounded to bf16 before the merge are named (lse-bf16-merge)', async () => {
    const { s, c } = await runYaml(selftest('lse-bf16-merge', 'mha', 'schedule'));
    expect(c.comparison.firstDivergence).toMatchObject({ stage: 'suffix_lse', culprit: 'mha' });
    expect(again(c, s)[0]).toMatchObject({ cause: 'narrow-storage', matches: 'lse-bf16-merge' });
  });

  it('bf16 with large activations: ql_nope overflowing fp16 is named from the overflow count; without the count it is not', async () => {
    const { s, c } = await runYaml(
      [
        'name: t',
        'model:',
        '  preset: tiny',
        'weights:',
        '  synthetic: { seed: 1, gain: { q_a_layernorm: 300000 } }',
        'prompt:',
        '  ids: [1, 2, 3, 4]',
        'dtype: bfloat16',
        'reference: on',
        'faults:',
        '  - { path: mqa, fault: absorbed-fp16 }',
        '',
      ].join('\n'),
    );
    expect(c.comparison.firstDivergence).toMatchObject({ stage: 'ql_nope', culprit: 'mqa' });
    const d = again(c, s)[0]!;
    expect(d).toMatchObject({ cause: 'dtype-range', matches: 'absorbed-fp16' });
    expect(d.summary).toMatch(/fp16.*bf16/);
    const blind = structuredClone(c);
    for (const r of blind.trace.paths.mqa!.stages) delete r.checks;
    expect(again(blind, s).some((x) => x.cause === 'dtype-range')).toBe(false);
    const later = structuredClone(blind); // an overflow after the first divergence does not explain it
    later.trace.paths.mqa!.stages.find((r) => r.stage === 'o_proj_out')!.checks = [{ name: 'overflow', violations: 3 }];
    expect(again(later, s).some((x) => x.cause === 'dtype-range')).toBe(false);
  });

  it('a clean bf16 run has no divergence and so nothing to diagnose', async () => {
    const { s, c } = await runYaml('name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\ndtype: bfloat16\nreference: on\n');
    expect(c.comparison.verdict).toBe('agree');
    expect(again(c, s)).toEqual([]);
  });
});
