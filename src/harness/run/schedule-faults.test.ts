import type { FaultName, FaultPath } from '../../core/faults/catalogue';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import { testRuntime } from '../../test-utils/runtime';
import { runScenario } from './run-scenario';

/**
 * Every serving fault of the catalogue, planted in one path of a tiny schedule, is localized to its
 * LSE or merge stage with the step, request and chunk where it first shows, with the float64
 * reference and without it (then the LSE checks and the majority of mha, mqa and cold decide).
 *
 * Schedule: `chat` prefills 12 tokens in chunks of 5 (step 1 has 5 tokens of context: chunk 0 full,
 * chunk 1 empty), decodes 3 through MQA, prefills 4 more; `hit` finds 7 tokens cached and prefills
 * 6 after them (2 context chunks). Every path computes every piece; MQA splits the KV in 3.
 */
const schedule = (kernel: 'fa2' | 'fa3', reference: 'on' | 'off', path: FaultPath, fault: FaultName) =>
  [
    'name: schedule-fault',
    'model: {preset: tiny}',
    'weights: {synthetic: {seed: 3}}',
    `reference: ${reference}`,
    `schedule: {block_size: 4, context_chunk: 5, kv_splits: 3, prefill_kernel: ${kernel}}`,
    'requests:',
    '  - {name: chat, steps: [{prefill: 12, chunk: 5}, {decode: 3}, {prefill: 4}]}',
    '  - {name: hit, steps: [{cached: 7}, {prefill: 6}]}',
    `faults: [{path: ${path}, fault: ${fault}}]`,
  ].join('\n');

interface Want {
  step: number;
  request: string;
  stage: string;
  chunk?: number;
  culprit: FaultPath;
}

describe('serving faults are localized on a schedule (tiny, wasm)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it.each<[FaultPath, FaultName, 'fa2' | 'fa3', 'on' | 'off', Want]>([
    ['mha', 'lse-base-2', 'fa3', 'on', { step: 0, request: 'chat', stage: 'lse', culprit: 'mha' }],
    ['mha', 'lse-base-2', 'fa3', 'off', { step: 0, request: 'chat', stage: 'lse', culprit: 'mha' }],
    ['mqa', 'lse-base-2', 'fa3', 'on', { step: 0, request: 'chat', stage: 'lse', culprit: 'mqa' }],
    ['mqa', 'lse-base-2', 'fa3', 'off', { step: 0, request: 'chat', stage: 'lse', culprit: 'mqa' }],
    ['mqa', 'split-merge-base-2', 'fa3', 'on', { step: 0, request: 'chat', stage: 'lse', culprit: 'mqa' }],
    ['mqa', 'split-merge-base-2', 'fa3', 'off', { step: 0, request: 'chat', stage: 'lse', culprit: 'mqa' }],
    ['mha', 'lse-layout-transposed', 'fa3', 'on', { step: 1, request: 'chat', stage: 'context_lse', chunk: 0, culprit: 'mha' }],
    ['mha', 'merge-inf-unhandled', 'fa2', 'on', { step: 1, request: 'chat', stage: 'context_output', chunk: 1, culprit: 'mha' }],
    ['mha', 'merge-inf-unhandled', 'fa2', 'off', { step: 1, request: 'chat', stage: 'context_output', chunk: 1, culprit: 'mha' }],
    ['mha', 'v-unpadded-before-merge', 'fa3', 'on', { step: 1, request: 'chat', stage: 'context_output', chunk: 1, culprit: 'mha' }],
    // without the reference nothing judges the MHA-only merge records: the first shared record after them
    ['mha', 'v-unpadded-before-merge', 'fa3', 'off', { step: 1, request: 'chat', stage: 'attn_out_heads', culprit: 'mha' }],
  ])('%s %s (%s, reference %s)', async (path, fault, kernel, reference, want) => {
    const before = rt.tf.memory().numTensors;
    const r = await runScenario(parseScenario(schedule(kernel, reference, path, fault)), {
      runtime: rt,
      toolVersion: 'test',
      worker: false,
    });
    expect(rt.tf.memory().numTensors).toBe(before);
    expect(r.verdict).toBe('diverge');
    const f = r.cases[0]!.comparison.firstDivergence!;
    expect({ step: f.step, request: f.request, stage: f.stage, chunk: f.chunk, culprit: f.culprit }).toEqual({ chunk: undefined, ...want });
  });

  it('merge-inf-unhandled is silent under FA3, whose empty chunks already report −inf', async () => {
    const r = await runScenario(parseScenario(schedule('fa3', 'on', 'mha', 'merge-inf-unhandled')), {
      runtime: rt,
      toolVersion: 'test',
      worker: false,
    });
    expect(r.verdict).toBe('agree');
  });
});
