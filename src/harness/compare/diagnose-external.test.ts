import type { CaseTrace } from '../../trace';
import type { Runtime } from '../../devices/runtime';
import { testRuntime } from '../../test-utils/runtime';
import { asExternal } from '../../test-utils/as-external';
import { findCause, firstRecord, plantedRuns } from '../../test-utils/planted-runs';

/**
 * Every signature for a third-party culprit: each planted fault of ours run for real, then the faulty path's records,
 * scalars and pairs re-labelled as the external path's (asExternal), as if a backend with the same bug had reported them
 * through the protocol. The diagnosis must find the same cause, from the third party's own records; where a third party
 * reports no scalars, from the norms, the statistics and the detail measured on the pair that failed.
 */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});
const { run, ext } = plantedRuns(() => rt);
const find = findCause;
const rec = firstRecord;

describe('every signature fires for a third-party culprit', () => {
  it('softmax scale from its reported scalar; without it the norm ratio at logits names the same constant', async () => {
    const x = await ext('softmax-scale-latent', 'mqa');
    expect(x.comparison.firstDivergence).toMatchObject({ stage: 'logits', culprit: 'external' });
    expect(x.diagnosis[0]).toMatchObject({ cause: 'softmax-scale', matches: 'softmax-scale-latent' });
    expect(x.diagnosis[0]!.evidence).toContain('node-mutant');
    const blind = await ext('softmax-scale-latent', 'mqa', 'prefill', { scalars: false });
    expect(blind.diagnosis[0]).toMatchObject({ cause: 'norm-ratio', matches: 'softmax-scale-latent' });
  });

  it('norm ratio: the softmax scale applied twice (0.0625 at GLM-5) and 1/kv_lora_rank at an output', async () => {
    const twice = await ext('softmax-scale-latent', 'mqa', 'prefill', {
      scalars: false,
      edit: (t) => {
        rec(t, 'external', 'logits').stats.l2 = rec(t, 'reference', 'logits').stats.l2 * t.expectedSoftmaxScale;
      },
    });
    expect(find(twice.diagnosis, 'norm-ratio')?.summary).toMatch(/applied twice/);
    const { s, c } = await run('v-unpadded-before-merge', 'mha', 'schedule');
    const first = c.comparison.firstDivergence!;
    const mean = asExternal(c, 'mha', s, {
      edit: (t) => {
        const e = t.paths.external!.stages.find((r) => r.stage === first.stage && r.chunk === first.chunk && r.step === first.step)!;
        const r = t.paths.reference!.stages.find((x) => x.stage === first.stage && x.chunk === first.chunk && x.step === first.step)!;
        e.stats.l2 = r.stats.l2 / s.config.kv_lora_rank;
      },
    });
    expect(find(mean.diagnosis, 'norm-ratio')?.summary).toMatch(/kv_lora_rank/);
  });

  it('k_scale and the YaRN scales from its scalar', async () => {
    for (const f of ['k-scale-bf16-cache', 'yarn-mscale-missing', 'yarn-log-mul-misread'] as const)
      expect((await ext(f, 'mha')).diagnosis[0]).toMatchObject({ cause: 'softmax-scale', matches: f });
  });

  it('LSE base 2 from lse_base, else from the ln 2 ratio', async () => {
    expect((await ext('lse-base-2', 'mha')).diagnosis[0]).toMatchObject({ cause: 'lse-base', matches: 'lse-base-2' });
    const blind = await ext('lse-base-2', 'mha', 'prefill', { scalars: false });
    expect(blind.diagnosis[0]).toMatchObject({ cause: 'lse-base' });
    expect(blind.diagnosis[0]!.matches).toBeUndefined();
  });

  it('LSE layout: from the detail (its values with the axes swapped agree), else from where its largest value sits', async () => {
    const { s, c } = await run('lse-base-2', 'mha');
    const scramble = (t: CaseTrace) => {
      const e = rec(t, 'external', 'lse');
      const r = rec(t, 'reference', 'lse');
      const [N, T] = r.stats.shape as [number, number];
      const k = r.stats.maxAbsAt[0]! * T + r.stats.maxAbsAt[1]!;
      const j = (k % T) * N + Math.floor(k / T); // where a [T, N] buffer puts it
      e.stats = { ...r.stats, maxAbsAt: [Math.floor(j / T), j % T] };
      const d = t.diffs.find((x) => x.stage === 'lse' && x.a === 'external' && x.b === 'reference')!;
      d.normRatio = 1;
    };
    const byStats = asExternal(c, 'mha', s, { scalars: false, edit: scramble });
    expect(byStats.diagnosis[0]).toMatchObject({ cause: 'lse-layout', evidence: expect.stringContaining('transposed read') });
    const byDetail = asExternal(c, 'mha', s, {
      scalars: false,
      edit: (t) => {
        rec(t, 'external', 'lse').stats = { ...rec(t, 'reference', 'lse').stats };
        t.diffs.find((x) => x.stage === 'lse' && x.a === 'external' && x.b === 'reference')!.normRatio = 1;
      },
      editDetail: (d) => {
        d.records.find((r) => r.stage === 'lse')!.swapped = 1e-8;
      },
    });
    expect(byDetail.detail!.records.find((r) => r.stage === 'lse')).toMatchObject({ a: 'external', b: 'reference' });
    expect(byDetail.diagnosis[0]).toMatchObject({ cause: 'lse-layout', evidence: expect.stringContaining('axes swapped') });
  });

  it('LSE sign: the same norm, the opposite mean', async () => {
    const x = await ext('lse-base-2', 'mha', 'prefill', {
      scalars: false,
      edit: (t) => {
        const r = rec(t, 'reference', 'lse').stats;
        rec(t, 'external', 'lse').stats = { ...r, mean: -r.mean };
        t.diffs.find((d) => d.stage === 'lse' && d.a === 'external' && d.b === 'reference')!.normRatio = 1;
      },
    });
    expect(x.diagnosis[0]).toMatchObject({ cause: 'lse-sign' });
  });

  it('RoPE convention from rope_style, else agreement only at position 0; RoPE magnitude from the norm ratio', async () => {
    expect((await ext('rope-neox', 'mha')).diagnosis[0]).toMatchObject({ cause: 'rope-convention', matches: 'rope-neox' });
    const blind = await ext('rope-neox', 'mha', 'schedule', { scalars: false });
    expect(blind.detail!.records[0]).toMatchObject({ a: 'external', b: 'reference' });
    expect(blind.diagnosis[0]).toMatchObject({ cause: 'rope-convention', evidence: expect.stringContaining('position 0') });
    const mag = await ext('rope-mscale-inflated', 'mqa', 'prefill', { scalars: false });
    expect(mag.diagnosis[0]).toMatchObject({ cause: 'rope-magnitude', matches: 'rope-mscale-inflated' });
  });

  it('kv_a_layernorm skipped, W_UK_T scrambled, W_UK and W_UV swapped: from its norms', async () => {
    expect((await ext('kv-norm-skipped', 'mqa')).diagnosis[0]).toMatchObject({ cause: 'norm-skipped', matches: 'kv-norm-skipped' });
    expect((await ext('w-uk-wrong-axis', 'mqa')).diagnosis[0]).toMatchObject({ cause: 'absorbed-weights', matches: 'w-uk-wrong-axis' });
  });

  it('a subset of heads (k-pe-per-head: head 0 alone right, its k_pe agrees) and a flat softmax, on its pair', async () => {
    const heads = await ext('k-pe-per-head', 'mha', 'prefill', { scalars: false });
    expect(heads.diagnosis[0]).toMatchObject({ cause: 'head-subset', matches: 'k-pe-per-head' });
    const flat = await ext('k-scale-bf16-cache', 'mha', 'prefill', { scalars: false });
    expect(find(flat.diagnosis, 'flat-softmax')?.evidence).toMatch(/node-mutant/);
  });

  it('serving: the split-KV combine, an empty chunk +inf LSE (and its NaN), the merge inputs, V unpadded, context only', async () => {
    const split = await ext('split-merge-base-2', 'mqa', 'schedule', { scalars: false });
    expect(split.diagnosis[0]).toMatchObject({ cause: 'split-merge', matches: 'split-merge-base-2' });
    const inf = await ext('merge-inf-unhandled', 'mha', 'schedule-fa2', { scalars: false });
    expect(inf.diagnosis[0]).toMatchObject({ cause: 'empty-context-lse', matches: 'merge-inf-unhandled' });
    expect(inf.diagnosis.map((d) => d.cause)).toEqual(expect.arrayContaining(['nan-origin', 'context-only']));
    const layout = await ext('lse-layout-transposed', 'mha', 'schedule', { scalars: false });
    expect(layout.diagnosis[0]).toMatchObject({ cause: 'merge-inputs', matches: 'lse-layout-transposed' });
    const unpadded = await ext('v-unpadded-before-merge', 'mha', 'schedule', { scalars: false });
    expect(unpadded.diagnosis[0]).toMatchObject({ cause: 'merge-inputs', matches: 'v-unpadded-before-merge' });
  });
});
