import { originOf } from '../compare/origin';
import type { PathName } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { runScenario } from './run-scenario';
import type { CaseResult } from './trace';

jest.setTimeout(120_000);

/**
 * schedule.logits_rows end to end on a tiny layer with fused attention (wasm: the host tiling):
 * every path records the sampled rows of `logits` / `attn_probs` with the same shape, the pairs
 * agree to fp32 precision, and a fault that shows at the logits is still found there.
 *
 * Schedule: `chat` prefills 8 tokens (step 0), decodes 2 through MQA (steps 1, 2), prefills 4
 * more with 10 tokens of context in 2 chunks (step 3). Rows [0, 2, -1, 9]: 9 is out of range in
 * every piece; a decode piece has one token, so its rows are [0].
 */
const yaml = (extra: string[] = []) =>
  [
    'name: sampled-rows',
    'model: {preset: tiny}',
    'weights: {synthetic: {seed: 3}}',
    'reference: on',
    'schedule: {block_size: 4, context_chunk: 5, attention: fused, logits_rows: [0, 2, -1, 9]}',
    'requests:',
    '  - {name: chat, steps: [{prefill: 8}, {decode: 2}, {prefill: 4}]}',
    ...extra,
  ].join('\n');

async function run(rt: Runtime, extra: string[] = []): Promise<{ c: CaseResult; notes: string[] }> {
  const r = await expectNoLeak(rt, () =>
    runScenario(parseScenario(yaml(extra), 'test.yaml'), { runtime: rt, toolVersion: 'test', worker: false }),
  );
  return { c: r.cases[0]!, notes: r.cases[0]!.trace.notes };
}

describe('sampled logits rows with fused attention (tiny, wasm)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it('every path records the sampled rows; they agree within fp32 tolerance', async () => {
    const { c, notes } = await run(rt);
    expect(c.comparison.firstDivergence).toBeNull();
    expect(notes.join('\n')).toContain('sampled rows 0, 2, -1, 9');
    const N = c.trace.totalHeads;
    const rows: Record<number, number[]> = { 0: [0, 2, 7], 1: [0], 2: [0], 3: [0, 2, 3] };
    const keys: Record<number, number> = { 0: 8, 1: 9, 2: 10, 3: 14 };
    for (const path of ['mha', 'mqa', 'cold', 'reference'] as PathName[]) {
      const t = c.trace.paths[path]!;
      for (const step of [0, 1, 2, 3]) {
        expect(t.pieces.find((p) => p.step === step)!.scalars.logits_rows).toBe(rows[step]!.join(','));
        const rec = t.stages.find((s) => s.step === step && s.stage === 'logits');
        if (path === 'mha' && step > 0) {
          expect(rec).toBeUndefined();
          continue;
        } // MHA: logits without context only
        const r = rows[step]!.length;
        expect(rec!.stats.shape).toEqual(path === 'mqa' ? [r, N, keys[step]] : [N, r, keys[step]]);
        expect(t.stages.some((s) => s.step === step && s.stage === 'attn_probs')).toBe(true);
      }
    }
    const scored = c.trace.diffs.filter((d) => d.stage === 'logits' || d.stage === 'attn_probs');
    // per piece: 6 pairs of 4 paths at step 0, 3 pairs of mqa, cold, reference after it; logits and attn_probs
    expect(scored).toHaveLength(2 * (6 + 3 * 3));
    for (const d of scored) {
      expect(d.shapeMatch).toBe(true);
      expect(d.relErr!).toBeLessThanOrEqual(1e-5);
    }
    expect(c.comparison.stages.filter((v) => v.stage === 'logits').every((v) => v.verdict === 'ok')).toBe(true);
  });

  it('mqa softmax-scale-latent is still found at the logits, introduced there', async () => {
    const { c } = await run(rt, ['faults: [{path: mqa, fault: softmax-scale-latent}]']);
    const f = c.comparison.firstDivergence!;
    expect({ step: f.step, stage: f.stage, culprit: f.culprit }).toEqual({ step: 0, stage: 'logits', culprit: 'mqa' });
    expect(
      originOf(
        c.replay,
        c.comparison.stages.find((v) => v.stage === 'logits' && v.verdict !== 'ok')!,
      ),
    ).toBe('introduced');
  });
});
