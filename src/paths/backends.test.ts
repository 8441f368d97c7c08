import type { CaseResult } from '../harness/run/trace';
import { runScenario } from '../harness/run/run-scenario';
import type { Runtime } from '../devices/runtime';
import { parseScenario } from '../harness/scenario/load';
import { STAGE_NAMES, STAGES } from '../trace/stages';
import type { PathName } from '../trace/stages';
import { testRuntime } from '../test-utils/runtime';

/**
 * The core differential test: for a scenario, mha ≡ mqa ≡ reference at every comparable stage to
 * fp32 precision, every stage recorded by every path the ontology says produces it, and no tensor
 * left behind. One line per case.
 */
async function expectAgreement(rt: Runtime, yaml: string, tol = 1e-5): Promise<CaseResult[]> {
  const s = parseScenario(`name: t\nreference: on\n${yaml}`, 'test.yaml');
  const before = rt.tf.memory().numTensors;
  const report = await runScenario(s, { runtime: rt, toolVersion: 'test', worker: false });
  expect(rt.tf.memory().numTensors).toBe(before);
  for (const c of report.cases) {
    for (const p of ['mha', 'mqa', 'reference'] as PathName[]) {
      const recorded = c.trace.paths[p]!.stages.map((r) => r.stage);
      // One prefill without context, no KV splits: every stage of the path but the context and split ones.
      expect(recorded).toEqual(
        STAGE_NAMES.filter(
          (st) => (STAGES[st].paths as readonly PathName[]).includes(p) && STAGES[st].group !== 'context' && st !== 'split_lse',
        ),
      );
    }
    for (const d of c.trace.diffs) {
      expect({ stage: d.stage, pair: `${d.a}-${d.b}`, ok: d.relErr !== null && d.relErr < tol }).toEqual({
        stage: d.stage,
        pair: `${d.a}-${d.b}`,
        ok: true,
      });
      expect([...d.nan, d.infMismatch]).toEqual([0, 0, 0]);
    }
    for (const r of Object.values(c.trace.paths).flatMap((t) => t!.stages))
      for (const k of r.checks ?? []) expect({ stage: r.stage, ...k }).toEqual({ stage: r.stage, name: k.name, violations: 0 });
    expect(c.comparison.verdict).toBe('agree');
  }
  return report.cases;
}

describe.each(['wasm', 'cpu'] as const)('mha ≡ mqa ≡ reference on %s', (device) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime(device);
  });

  it('tiny, all heads and a TP slice, V ≠ D', async () => {
    await expectAgreement(
      rt,
      'model: {preset: tiny}\nprompt: {ids: [1, 2, 3, 4, 5, 6, 7, 8, 9]}\ncases: [{name: all}, {name: r1, tp: {size: 2, rank: 1}}]',
    );
  });

  it('tiny with NeoX RoPE and YaRN scaling, positions past the original window', async () => {
    await expectAgreement(
      rt,
      [
        'model:',
        '  preset: tiny',
        '  rope_interleave: false',
        '  rope_scaling: {type: yarn, factor: 8, mscale: 1, mscale_all_dim: 1, original_max_position_embeddings: 64}',
        'prompt: {length: 6, start_position: 61}',
      ].join('\n'),
    );
  });
});

describe('real dimensions on wasm', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it('GLM-5: all 64 heads and TP rank 0 of 8, 3 tokens', async () => {
    const cases = await expectAgreement(
      rt,
      'model: {preset: glm-5}\nprompt: {ids: [11, 12, 13]}\ncases: [{name: all}, {name: tp0, tp: {size: 8, rank: 0}}]',
    );
    const scale = cases[0]!.trace.paths.mqa!.pieces[0]!.scalars.softmax_scale;
    expect(scale).toBe(0.0625);
    expect(cases[1]!.trace.paths.mha!.stages.find((r) => r.stage === 'attn_out')!.stats.shape).toEqual([3, 2048]);
  });

  it('DeepSeek-V3 (YaRN, mscale² in the scale): TP rank 3 of 16 around position 4096', async () => {
    const cases = await expectAgreement(
      rt,
      'model: {preset: deepseek-v3}\nprompt: {length: 4, start_position: 4094}\ncases: [{name: tp3, tp: {size: 16, rank: 3}}]',
    );
    expect(cases[0]!.trace.paths.mha!.pieces[0]!.scalars.softmax_scale).toBeCloseTo(0.135234, 6);
  });
});

describe('planted faults are localized at GLM-5 dimensions (TP rank 0 of 8)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it.each([
    ['mqa', 'softmax-scale-latent', 'logits', 'mqa'],
    ['mha', 'softmax-scale-latent', 'logits', 'mha'],
    ['mha', 'rope-neox', 'q_pe', 'mha'],
    ['mqa', 'rope-neox', 'q_pe', 'mqa'],
    ['mqa', 'kv-norm-skipped', 'kv_c_normed', 'mqa'],
    ['mha', 'kv-norm-skipped', 'kv_c_normed', 'mha'],
    ['mha', 'lse-base-2', 'lse', 'mha'],
    ['mqa', 'lse-base-2', 'lse', 'mqa'],
  ] as const)('%s %s → first divergence %s, culprit %s', async (path, fault, stage, culprit) => {
    const s = parseScenario(
      [
        'name: f',
        'reference: on',
        'model: {preset: glm-5}',
        'prompt: {ids: [1820, 6864, 315, 9822, 374]}',
        'cases: [{name: tp0, tp: {size: 8, rank: 0}}]',
        `faults: [{path: ${path}, fault: ${fault}}]`,
      ].join('\n'),
    );
    const before = rt.tf.memory().numTensors;
    const r = await runScenario(s, { runtime: rt, toolVersion: 'test', worker: false });
    expect(rt.tf.memory().numTensors).toBe(before);
    expect(r.verdict).toBe('diverge');
    expect(r.cases[0]!.comparison.firstDivergence).toMatchObject({ stage, culprit });
  });
});
