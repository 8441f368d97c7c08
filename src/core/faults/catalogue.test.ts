import type { Runtime } from '../../devices/runtime';
import { runScenario } from '../../harness/run/run-scenario';
import { parseScenario } from '../../harness/scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import type { FaultName, FaultPath } from './catalogue';
import { FAULT_NAMES, FAULTS } from './catalogue';

/**
 * Every one-shot fault of the catalogue (needs: prefill or yarn), planted in each path it can
 * live in, is detected at the stage it enters and blamed on that path, with the float64
 * reference on. Serving faults (context, kv-splits) are localized in src/harness/run/schedule-faults.test.ts.
 */
const YARN = 'rope_scaling: {type: yarn, factor: 40, mscale: 1, mscale_all_dim: 1, original_max_position_embeddings: 256}';
const scenario = (yarn: boolean, fault?: [FaultPath, FaultName]) =>
  [
    'name: catalogue',
    `model: {preset: tiny${yarn ? `, ${YARN}` : ''}}`,
    'weights: {synthetic: {seed: 11}}',
    'prompt: {ids: [5, 17, 256, 999, 42, 8, 300], start_position: 3}',
    'reference: on',
    `faults: [${fault ? `{path: ${fault[0]}, fault: ${fault[1]}}` : ''}]`,
  ].join('\n');

const oneShot = FAULT_NAMES.filter((f) => FAULTS[f].needs === 'prefill' || FAULTS[f].needs === 'yarn');
const cases = oneShot.flatMap((f) => FAULTS[f].paths.map((p) => [f, p] as [FaultName, FaultPath]));

describe('the fault catalogue (tiny, wasm)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });
  const run = (yaml: string) =>
    expectNoLeak(rt, () => runScenario(parseScenario(yaml), { runtime: rt, toolVersion: 'test', worker: false }));

  it('covers at least 12 bug classes, each with its reference and where it enters', () => {
    expect(FAULT_NAMES.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(FAULTS)).toEqual([...FAULT_NAMES]); // the contract's names, in the catalogue's order
    for (const f of FAULT_NAMES) expect(FAULTS[f].bug).toMatch(/#\d+|no single public report/);
  });

  it.each([false, true])('clean runs agree (YaRN %s)', async (yarn) => {
    expect((await run(scenario(yarn))).verdict).toBe('agree');
  });

  it.each(cases)('%s in %s: first divergence at the stage it enters, culprit that path', async (fault, path) => {
    const r = await run(scenario(FAULTS[fault].needs === 'yarn', [path, fault]));
    const first = r.cases[0]!.comparison.firstDivergence;
    expect(r.verdict).toBe('diverge');
    expect({ stage: first?.stage, culprit: first?.culprit }).toEqual({ stage: FAULTS[fault].enters, culprit: path });
  });

  it(
    'w-uk-uv-swapped changes nothing unless qk_nope_head_dim = v_head_dim (tiny: 16 vs 12); ' + 'with them equal it is found at W_UK_T',
    async () => {
      expect((await run(scenario(false, ['mqa', 'w-uk-uv-swapped']))).verdict).toBe('agree');
      const r = await run(scenario(false, ['mqa', 'w-uk-uv-swapped']).replace('preset: tiny', 'preset: tiny, v_head_dim: 16'));
      expect(r.cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'W_UK_T', culprit: 'mqa' });
    },
  );

  it('YaRN faults change nothing without YaRN (why they need it)', async () => {
    for (const f of oneShot.filter((x) => FAULTS[x].needs === 'yarn')) {
      expect((await run(scenario(false, ['mha', f]))).verdict).toBe('agree');
    }
  });
});

describe('planting a fault', () => {
  it('in a path that does not have the code it breaks is invalid-value at faults[i].path', () => {
    expect(() =>
      parseScenario('name: x\nmodel: {preset: tiny}\nprompt: {ids: [1, 2]}\nfaults:\n  - {path: mha, fault: w-uk-wrong-axis}'),
    ).toThrow(expect.objectContaining({ code: 'invalid-value', where: expect.objectContaining({ field: 'faults[0].path', line: 5 }) }));
  });
});
