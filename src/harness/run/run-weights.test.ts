import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureLayers, smallFixtureConfig, tinyFixtureConfig } from '../../checkpoints/checkpoint/fixtures';
import { writeGgufCheckpoint } from '../../checkpoints/checkpoint/write-gguf';
import { writeSafetensorsCheckpoint } from '../../checkpoints/checkpoint/write-safetensors';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { runScenario } from './run-scenario';

/**
 * The weight stage end to end on wasm: checkpoints written by our writers, run on both paths and
 * compared with a second source of the same weights, without leaking a tensor.
 */
const dir = mkdtempSync(join(tmpdir(), 'mla-diff-rw-'));
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
  const tiny = tinyFixtureConfig();
  const small = smallFixtureConfig();
  writeGgufCheckpoint(join(dir, 'q8.gguf'), { config: tiny, layers: fixtureLayers(tiny), type: 'Q8_0', kvB: 'split' });
  writeGgufCheckpoint(join(dir, 'q4k.gguf'), { config: small, layers: fixtureLayers(small), type: 'Q4_K', kvB: 'split' });
  writeGgufCheckpoint(join(dir, 'q2k.gguf'), { config: small, layers: fixtureLayers(small), type: 'Q2_K', kvB: 'merged' });
  writeSafetensorsCheckpoint(join(dir, 'bf16'), { config: tiny, layers: fixtureLayers(tiny), dtype: 'BF16' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (yaml: string) =>
  expectNoLeak(rt, () =>
    runScenario(parseScenario(`name: w\nmodel: {}\n${yaml}`, join(dir, 's.yaml')), { runtime: rt, toolVersion: 'test', worker: false }),
  );

describe('weights: and compare_weights: through a run', () => {
  it.each(['q8.gguf', 'q4k.gguf', 'q2k.gguf'])(
    '%s against its synthetic source: every weight and activation within the bounds',
    async (file) => {
      const r = await run(
        `weights: {gguf: ${file}}\ncompare_weights: {synthetic: {seed: 0}}\nprompt: {ids: [1, 5, 9, 200]}\nreference: off`,
      );
      expect(r.verdict).toBe('agree');
      const c = r.weights!.comparison!;
      expect(c.weights.every((x) => x.verdict === 'agree' && x.beyond === 0)).toBe(true);
      expect(c.activations.length).toBeGreaterThan(20);
      expect(c.activations.every((x) => x.verdict === 'agree')).toBe(true);
      // quantization noise is real and the bounds are not vacuous: the worst activation uses a tenth of its allowance or more
      expect(Math.max(...c.activations.map((x) => x.relErr! / x.allowed))).toBeGreaterThan(0.1);
    },
  );
  it('the k-b-wrong-axis loader fault: paths agree with each other, W names kv_b_proj (W_UK rows), then k_nope and ql_nope', async () => {
    const r = await run(
      'weights: {gguf: q8.gguf, loader_fault: k-b-wrong-axis}\ncompare_weights: {safetensors: bf16}\n' +
        'prompt: {ids: [3, 4, 5, 6]}\nreference: off',
    );
    expect(r.cases[0]!.comparison.verdict).toBe('agree'); // invisible to mha↔mqa diffing
    expect(r.verdict).toBe('diverge');
    const c = r.weights!.comparison!;
    expect(c.firstWeight).toBe('kv_b_proj');
    expect(c.weights.find((x) => x.name === 'W_UK')!.verdict).toBe('diverge');
    expect(c.weights.find((x) => x.name === 'W_UV')!.verdict).toBe('agree');
    expect(c.firstActivation.mha?.stage).toBe('k_nope');
    expect(c.firstActivation.mqa?.stage).toBe('ql_nope');
    // everything upstream of kv_b_proj stays within the quantization bounds
    expect(c.activations.filter((x) => ['q', 'kv_c_normed', 'kv_cache'].includes(x.stage)).every((x) => x.verdict === 'agree')).toBe(true);
  });
  it('records W for a checkpoint without a second source; none for plain synthetic weights', async () => {
    const r = await run('weights: {gguf: q8.gguf}\nprompt: {ids: [1, 2]}\nreference: off');
    expect(r.weights!.comparison).toBeUndefined();
    const rec = r.weights!.primary.records;
    expect(rec.map((x) => x.name)).toEqual([
      'embed_tokens',
      'input_layernorm',
      'q_a_proj',
      'q_a_layernorm',
      'q_b_proj',
      'kv_a_proj_with_mqa',
      'kv_a_layernorm',
      'kv_b_proj',
      'W_UK',
      'W_UV',
      'o_proj',
    ]);
    expect(rec.find((x) => x.name === 'kv_b_proj')!.tensors).toEqual(['blk.0.attn_k_b.weight', 'blk.0.attn_v_b.weight']);
    expect(rec.find((x) => x.name === 'q_a_proj')!).toMatchObject({ dtype: 'Q8_0', shape: [48, 96] });
    const s = await expectNoLeak(rt, () =>
      runScenario(parseScenario('name: s\nmodel: {preset: tiny}\nprompt: {ids: [1, 2]}\nreference: off'), {
        runtime: rt,
        toolVersion: 'test',
        worker: false,
      }),
    );
    expect(s.weights).toBeUndefined();
  });
});
