import type * as tfc from '@tensorflow/tfjs-core';
import type { MlaBackend } from '../../paths/backend';
import { disposeLayer, uploadLayer } from '../../paths/layer';
import { MhaBackend } from '../../paths/mha';
import { MqaBackend } from '../../paths/mqa';
import { NO_FAULTS } from '../../core/faults/catalogue';
import { NULL_PROBE } from '../../core/probes/probe';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { fmix32 } from '../../core/weights/normal';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { planRun } from './pieces';
import { runScenario } from './run-scenario';

/**
 * The equalities serving must keep (property-style, fixed seeds): any chunking of a prefill, any
 * context-chunk size, any block size and any KV split count give the same outputs; with context,
 * MHA ≡ MQA ≡ cold ≡ float64 reference on random schedules.
 */
const rand = (seed: number) => {
  let i = 0;
  return (n: number) => fmix32(Math.imul(++i, 0x9e3779b1) ^ seed) % n;
};

/** o_proj_out of every token of request `r`, in token order, through one path. */
async function outputs(rt: Runtime, yaml: string, path: 'mha' | 'mqa', request = 'r'): Promise<Float32Array[]> {
  const s = parseScenario(`name: e\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 5}}\n${yaml}`);
  const source = new SyntheticWeights(s.config, s.seed);
  const plan = planRun(s, source);
  const layer = uploadLayer(rt, source, { start: 0, count: s.config.num_attention_heads }, 8);
  const backend: MlaBackend<tfc.Tensor> =
    path === 'mha'
      ? new MhaBackend(layer, NO_FAULTS, plan.tables.numSlots, plan.kernels)
      : new MqaBackend(layer, NO_FAULTS, plan.tables.numSlots, plan.kernels);
  const rows: Float32Array[] = [];
  try {
    for (const p of plan.pieces) {
      if (p.kind === 'cached') {
        await backend.fill(p);
        continue;
      }
      const out = (await backend.step(p, NULL_PROBE, true))!;
      if (p.request === request)
        for (let t = 0; t < p.ids.length; t++)
          rows.push(Float32Array.from(out.subarray(t * s.config.hidden_size, (t + 1) * s.config.hidden_size)));
    }
  } finally {
    backend.dispose();
    disposeLayer(layer);
  }
  return rows;
}

function relErr(a: Float32Array[], b: Float32Array[]): number {
  expect(a.length).toBe(b.length);
  let dd = 0,
    aa = 0;
  a.forEach((row, i) =>
    row.forEach((x, j) => {
      dd += (x - b[i]![j]!) ** 2;
      aa += x * x;
    }),
  );
  return Math.sqrt(dd / aa);
}

describe('serving equalities (tiny, wasm, fixed seeds)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });
  const req = (steps: string) => `requests:\n  - {name: r, steps: [${steps}]}`;

  it.each([1, 2, 3])('any chunking of a 23-token prefill gives the outputs of the one-shot prefill (seed %i)', async (seed) => {
    const r = rand(seed);
    const chunk = 1 + r(9);
    const cold = await expectNoLeak(rt, () => outputs(rt, req('{prefill: 23}'), 'mha'));
    const chunked = await expectNoLeak(rt, () =>
      outputs(rt, `schedule: {block_size: ${1 + r(8)}, context_chunk: ${1 + r(12)}}\n${req(`{prefill: 23, chunk: ${chunk}}`)}`, 'mha'),
    );
    expect(relErr(chunked, cold)).toBeLessThan(1e-5);
  });

  it.each([2, 5, 64])('the context-chunk size (%i) does not change MHA-with-context outputs', async (cc) => {
    const steps = '{prefill: 9}, {prefill: 5}, {decode: 2}, {prefill: 7}';
    const one = await outputs(rt, `schedule: {context_chunk: 1000}\n${req(steps)}`, 'mha');
    const other = await outputs(rt, `schedule: {context_chunk: ${cc}}\n${req(steps)}`, 'mha');
    expect(relErr(other, one)).toBeLessThan(1e-5);
  });

  it.each([1, 3, 16])('the block size (%i) does not change a single bit', async (bs) => {
    const steps = '{cached: 6}, {prefill: 8, chunk: 3}, {decode: 3}';
    for (const path of ['mha', 'mqa'] as const) {
      const a = await outputs(rt, `schedule: {block_size: 32, context_chunk: 4}\n${req(steps)}`, path);
      const b = await outputs(rt, `schedule: {block_size: ${bs}, context_chunk: 4}\n${req(steps)}`, path);
      expect(relErr(b, a)).toBe(0);
    }
  });

  it.each([2, 3, 7, 40])('split-KV with %i splits equals no split', async (splits) => {
    const steps = '{prefill: 11, chunk: 4}, {decode: 4}';
    const one = await outputs(rt, `schedule: {kv_splits: 1}\n${req(steps)}`, 'mqa');
    const many = await outputs(rt, `schedule: {kv_splits: ${splits}}\n${req(steps)}`, 'mqa');
    expect(relErr(many, one)).toBeLessThan(1e-5);
  });

  it.each([11, 12, 13])(
    'random schedule %i: MHA-with-context ≡ MQA decode ≡ cold ≡ reference at every record of every piece',
    async (seed) => {
      const r = rand(seed);
      const requests = [0, 1, 2].map((i) => {
        const steps = [
          ...(r(2) ? [`{cached: ${1 + r(6)}}`] : []),
          `{prefill: ${2 + r(10)}, chunk: ${1 + r(5)}}`,
          `{decode: ${r(3) + 1}}`,
          ...(r(2) ? [`{prefill: ${1 + r(6)}}`] : []),
        ];
        return `  - {name: q${i}, start_step: ${r(3)}, steps: [${steps.join(', ')}]}`;
      });
      const yaml = [
        'name: random',
        'model: {preset: tiny}',
        'reference: on',
        `schedule: {block_size: ${1 + r(6)}, context_chunk: ${1 + r(7)}, kv_splits: ${1 + r(4)}, ` +
          `decode_threshold: ${1 + r(2)}, prefill_kernel: ${r(2) ? 'fa2' : 'fa3'}, cold: on}`,
        'requests:',
        ...requests,
      ].join('\n');
      const before = rt.tf.memory().numTensors;
      const report = await runScenario(parseScenario(yaml), { runtime: rt, toolVersion: 'test', worker: false });
      expect(rt.tf.memory().numTensors).toBe(before);
      const c = report.cases[0]!;
      expect(c.comparison.firstDivergence).toBeNull();
      expect(Object.keys(c.trace.paths).sort()).toEqual(['cold', 'mha', 'mqa', 'reference']);
      expect(c.trace.diffs.filter((d) => d.stage === 'o_proj_out').length).toBe(
        6 * c.trace.pieces.filter((p) => p.kind !== 'cached').length,
      );
    },
  );
});
