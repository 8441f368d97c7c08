import type { CaseTrace, EngineInfo } from '../../trace';
import type { Runtime } from '../../devices/runtime';
import { testRuntime } from '../../test-utils/runtime';
import { originOf } from './origin';
import { asExternal } from '../../test-utils/as-external';
import { findCause, firstRecord, plantedRuns } from '../../test-utils/planted-runs';

/**
 * The precision and engine signatures and the record origins for a third-party culprit, on planted runs of ours re-read
 * with the faulty path as the external one (asExternal; diagnose-external.test.ts has the others).
 */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});
const { runYaml, ext } = plantedRuns(() => rt);
const find = findCause;
const rec = firstRecord;

describe('precision and engine signatures for a third party', () => {
  it('W_UK and W_UV swapped, from the norms of the weights it reports', async () => {
    expect((await ext('w-uk-uv-swapped', 'mqa')).diagnosis[0]).toMatchObject({ cause: 'absorbed-weights', matches: 'w-uk-uv-swapped' });
  });

  it('one fp16 rounding where it keeps fp32 (narrow storage); fp16 overflow: its infinities where the reference passes 65504', async () => {
    expect((await ext('absorbed-fp16', 'mqa')).diagnosis[0]).toMatchObject({ cause: 'narrow-storage', matches: 'absorbed-fp16' });
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
    const x = asExternal(c, 'mqa', s, { info: { precision: 'bfloat16' } });
    const d = find(x.diagnosis, 'dtype-range')!;
    expect(d).toMatchObject({ matches: 'absorbed-fp16', evidence: expect.stringContaining('inf') });
    expect(d.summary).toMatch(/fp16.*bf16/);
  });

  it('a product it introduces while its input agrees: its reading of the weight (a backend) or the model file (an engine)', async () => {
    const noWeights = (t: CaseTrace) => {
      t.paths.external!.stages = t.paths.external!.stages.filter((r) => r.stage !== 'W_UK_T' && r.stage !== 'W_UV');
      t.diffs = t.diffs.filter((d) => !(d.a === 'external' && (d.stage === 'W_UK_T' || d.stage === 'W_UV')));
    };
    const x = await ext('w-uk-wrong-axis', 'mqa', 'prefill', { edit: noWeights });
    expect(x.comparison.firstDivergence).toMatchObject({ stage: 'k_nope', culprit: 'external' });
    expect(
      originOf(
        x.replay,
        x.comparison.stages.find((v) => v.stage === 'k_nope')!,
      ),
    ).toBe('introduced');
    expect(x.diagnosis[0]).toMatchObject({ cause: 'weight-differs', summary: expect.stringContaining("kv_b_proj's K rows") });
    const engine = await ext('w-uk-wrong-axis', 'mqa', 'prefill', { edit: noWeights, info: { kind: 'engine', name: 'llama.cpp' } });
    expect(engine.diagnosis[0]).toMatchObject({ cause: 'weight-differs', summary: expect.stringContaining("model file's attn_k_b") });
  });

  it("an engine's op parameters (RoPE base, softmax scale) and an all-ones norm weight", async () => {
    const engine = (opScalars: Record<string, number>) =>
      ({ kind: 'engine', name: 'llama.cpp', engine: { opScalars } as unknown as EngineInfo }) as const;
    const rope = await ext('rope-mscale-inflated', 'mqa', 'prefill', { scalars: false, info: engine({ rope_freq_base: 1234 }) });
    expect(rope.diagnosis[0]).toMatchObject({ cause: 'rope-parameters', matches: 'rope-freq-base' });
    const scale = await ext('yarn-mscale-missing', 'mha', 'prefill', { info: engine({}) });
    expect(scale.diagnosis[0]).toMatchObject({ cause: 'softmax-scale', matches: 'yarn-log-multiplier-unscaled' });
    expect(scale.diagnosis.filter((d) => d.cause === 'softmax-scale')).toHaveLength(1); // the engine's, not both
    const ones = await ext('kv-norm-skipped', 'mqa', 'prefill', {
      info: engine({}),
      edit: (t) => {
        const r = rec(t, 'external', 'kv_c_normed');
        r.stats.l2 = Math.sqrt(r.stats.size);
      },
    });
    expect(ones.diagnosis[0]).toMatchObject({ cause: 'norm-weight-ones', matches: 'kv-a-norm-ones' });
  });
});

describe('rows, masks and rotations of a third party', () => {
  it('a RoPE output of the right norm, its pre-RoPE input agreeing: the rotation (positions, frequencies, pairing)', async () => {
    const x = await ext('rope-neox', 'mha', 'prefill', { scalars: false });
    expect(x.comparison.firstDivergence).toMatchObject({ stage: 'q_pe', culprit: 'external' });
    expect(find(x.diagnosis, 'rope-parameters')?.evidence).toMatch(/q_pe_raw agrees/);
  });

  it('attention entropy past ln(keys allowed): the causal mask, not a flat softmax', async () => {
    const x = await ext('k-scale-bf16-cache', 'mha', 'prefill', {
      scalars: false,
      editDetail: (d) => {
        d.entropy[0]!.paths.external = 1.01;
      },
    });
    expect(find(x.diagnosis, 'causal-mask')?.evidence).toMatch(/1\.01 > 1/);
    expect(find(x.diagnosis, 'flat-softmax')).toBeUndefined();
  });

  it("a norm's rows each off by a factor (another RMS divisor), else its weight applied otherwise", async () => {
    const weight = await ext('kv-norm-skipped', 'mqa');
    expect(weight.detail!.records[0]).toMatchObject({ stage: 'kv_c_normed', a: 'external', rowScaled: expect.any(Number) });
    expect(find(weight.diagnosis, 'weight-differs')?.summary).toMatch(/kv_a_layernorm's weight/);
    const rms = await ext('kv-norm-skipped', 'mqa', 'prefill', {
      editDetail: (d) => {
        d.records[0]!.rowScaled = 1e-9;
      },
    });
    expect(find(rms.diagnosis, 'norm-rms')?.evidence).toMatch(/once each row is rescaled; kv_c agrees/);
  });
});

describe('third-party origins on the planted runs', () => {
  it('its first divergence is introduced, what follows from it inherited', async () => {
    const x = await ext('kv-norm-skipped', 'mqa');
    const first = x.comparison.stages.find((v) => v.verdict !== 'ok')!;
    expect(originOf(x.replay, first)).toBe('introduced');
    const later = x.comparison.stages.filter((v) => v.verdict !== 'ok' && v.culprit === 'external').slice(1);
    expect(later.map((v) => originOf(x.replay, v))).toContain('inherited');
  });
});
