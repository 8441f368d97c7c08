/** Sizes a scenario states are bounded before anything is built (issue 23: a 2-line file asked for 1.7 GB, or died of OOM). */
import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));
const many = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('');
const tiny = (rest: string) => `name: t\nmodel:\n  preset: tiny\n${rest}`;

describe('scenario limits: limit-exceeded at the field, before any array is built', () => {
  it.each([
    ['a prompt of 10^9 tokens', tiny('prompt: {length: 1000000000}\n'), 'prompt.length', 4],
    [
      'a cached prefix of 10^12 tokens',
      tiny('requests:\n  - name: r\n    steps: [{cached: 1000000000000}, {decode: 1}]\n'),
      'requests[0].steps[0].cached',
      6,
    ],
    [
      'requests that together pass the token bound',
      tiny(`requests:\n${[0, 1, 2].map((i) => `  - name: r${i}\n    steps: [{prefill: 100000}]\n`).join('')}`),
      'requests[2].steps[0].prefill',
      10,
    ],
    [
      'a start step of 10^9',
      tiny('requests:\n  - name: r\n    start_step: 1000000000\n    steps: [{prefill: 4}]\n'),
      'requests[0].start_step',
      6,
    ],
    ['10^6 heads', tiny('  num_attention_heads: 1000000\nprompt: {length: 4}\n'), 'model.num_attention_heads', 4],
    ['a vocabulary of 10^9', tiny('  vocab_size: 1000000000\nprompt: {length: 4}\n'), 'model.vocab_size', 4],
    ['a hidden size of 10^7', tiny('  hidden_size: 10000000\nprompt: {length: 4}\n'), 'model.hidden_size', 4],
    [
      'dims each within bounds whose projections are not (64k hidden × 1024 heads)',
      tiny('  hidden_size: 65536\n  num_attention_heads: 1024\nprompt: {length: 4}\n'),
      'model.num_attention_heads',
      5,
    ],
    ['a block of 10^9 slots', tiny('prompt: {length: 4}\nschedule: {block_size: 1000000000}\n'), 'schedule.block_size', 5],
    [
      'a paged cache past its slot bound (64 requests in blocks of 65536)',
      tiny(`schedule: {block_size: 65536}\nrequests:\n${many(64, (i) => `  - {name: r${i}, steps: [{prefill: 1}]}\n`)}`),
      'schedule.block_size',
      4,
    ],
    ['10^6 kv splits', tiny('prompt: {length: 4}\nschedule: {kv_splits: 1000000}\n'), 'schedule.kv_splits', 5],
    [
      'a chunked prefill attending its context in 1-token chunks',
      tiny(
        '  max_position_embeddings: 262144\nschedule: {context_chunk: 1}\n' +
          'requests:\n  - name: r\n    steps: [{prefill: 200000, chunk: 1}]\n',
      ),
      'schedule.context_chunk',
      5,
    ],
    ['300 cases', tiny(`prompt: {length: 4}\ncases:\n${Array.from({ length: 300 }, (_, i) => `  - name: c${i}\n`).join('')}`), 'cases', 6],
    [
      'an external timeout past setTimeout',
      tiny('prompt: {length: 4}\nexternal: {command: x, timeout_s: 1e10}\n'),
      'external.timeout_s',
      5,
    ],
    ['a 300-character name', `name: ${'n'.repeat(300)}\nmodel: {preset: tiny}\nprompt: {length: 4}\n`, 'name', 1],
  ])('%s', (_what, text, field, line) => {
    const t0 = Date.now();
    const e = parseError(text);
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'test.yaml', field, line } });
    expect(e.hint).toMatch(/\d/); // names the bound
    expect(e.message).not.toContain('undefined');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('attention work past heads × tokens² (8 full cases of GLM-5 over 131k tokens)', () => {
    const cases = Array.from({ length: 8 }, (_, i) => `  - name: c${i}\n`).join('');
    const e = parseError(`name: t\nmodel: {preset: glm-5}\nprompt: {length: 131072}\ncases:\n${cases}`);
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'test.yaml', field: 'prompt.length', line: 3 } });
  });

  it.each([
    ['GLM-5, 64 heads, 128k tokens prefilled in 8k chunks, then decodes', 'glm-5', '{prefill: 131072, chunk: 8192}, {decode: 2}'],
    ['DeepSeek-V3, 128 heads, 128k tokens and decodes', 'deepseek-v3', '{prefill: 131072}, {decode: 16}'],
    ['DeepSeek-V3, a 128k prefix-cache hit and a prefill', 'deepseek-v3', '{cached: 131072}, {prefill: 512}'],
  ])('real work still loads: %s', (_what, preset, steps) => {
    const s = parseScenario(`name: t\nmodel: {preset: ${preset}}\nrequests:\n  - name: r\n    steps: [${steps}]\n`);
    expect(s.requests[0]!.ids.length).toBeGreaterThan(131072);
  });
});
