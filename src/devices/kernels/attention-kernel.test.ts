import { recordKey } from '../../core/probes/recorder';
import { runScenario } from '../../harness/run/run-scenario';
import type { Runtime } from '../runtime';
import { parseScenario } from '../../harness/scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { unfusedAttention } from './attention-unfused';

/**
 * The paths' fused branch (layer.attention), driven by the unfused oracle in the AttentionFn
 * form: every record must match the unfused run's (the same math, the masks built per request),
 * and the engine paths then record no score tensor.
 */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});

const yaml = (attention: string, extra = '') => `name: t
model:
  preset: tiny
reference: on
schedule: { block_size: 4, context_chunk: 5, kv_splits: 3, attention: ${attention} }
requests:
  - name: a
    steps: [{ prefill: 9, chunk: 4 }, { decode: 2 }]
  - name: b
    start_step: 1
    steps: [{ cached: 3 }, { prefill: 4 }, { decode: 1 }]
${extra}`;

describe('attention through a fused kernel (the AttentionFn seam)', () => {
  it('records what the unfused paths record, to fp32 tolerance, without logits / attn_probs on the engine paths', async () => {
    const fusedRt: Runtime = { ...rt, attention: (req) => unfusedAttention(req, 'per-batch') };
    const plain = await expectNoLeak(rt, () =>
      runScenario(parseScenario(yaml('unfused')), { runtime: rt, toolVersion: 'test', worker: false }),
    );
    const fused = await expectNoLeak(rt, () =>
      runScenario(parseScenario(yaml('fused')), { runtime: fusedRt, toolVersion: 'test', worker: false }),
    );
    expect(fused.verdict).toBe('agree');
    const [a, b] = [plain.cases[0]!.trace, fused.cases[0]!.trace];
    for (const p of ['mha', 'mqa', 'cold'] as const) {
      expect(b.paths[p]!.stages.some((r) => r.stage === 'logits' || r.stage === 'attn_probs')).toBe(false);
      const want = new Map(a.paths[p]!.stages.map((r) => [recordKey(r), r.stats]));
      for (const r of b.paths[p]!.stages) {
        const w = want.get(recordKey(r))!;
        expect(Math.abs(r.stats.l2 - w.l2)).toBeLessThanOrEqual(1e-5 * Math.max(1, w.l2));
      }
      expect(b.paths[p]!.stages.length).toBe(a.paths[p]!.stages.filter((r) => r.stage !== 'logits' && r.stage !== 'attn_probs').length);
    }
    expect(b.paths.reference!.stages.some((r) => r.stage === 'logits')).toBe(true);
    expect(fused.cases[0]!.trace.notes.join(' ')).toMatch(/attention: fused/);
  });

  it('auto keeps small runs unfused; fused without a kernel or with a rounded P is refused with the field', async () => {
    const auto = await runScenario(parseScenario(yaml('auto')), {
      runtime: { ...rt, attention: (req) => unfusedAttention(req, 'per-batch') },
      toolVersion: 'test',
      worker: false,
    });
    expect(auto.cases[0]!.trace.paths.mha!.stages.some((r) => r.stage === 'logits')).toBe(true);
    const run = (y: string, r: Runtime) => runScenario(parseScenario(y), { runtime: r, toolVersion: 'test', worker: false });
    await expect(run(yaml('fused'), { ...rt, attention: undefined })).rejects.toMatchObject({
      code: 'invalid-value',
      where: { field: 'schedule.attention' },
    });
    await expect(
      run(yaml('fused', 'dtype: bfloat16\n'), { ...rt, attention: (req) => unfusedAttention(req, 'per-batch') }),
    ).rejects.toMatchObject({ code: 'invalid-value', where: { field: 'schedule.attention' } });
  });
});
