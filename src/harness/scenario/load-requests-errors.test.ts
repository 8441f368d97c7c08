import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */

describe('parseScenario: bad requests and schedules', () => {
  /** A tiny scenario with a schedule: `requests` and `more` are YAML lines (requests indented as list items). */
  const sched = (requests: string[], more = '') =>
    `name: t\nmodel: {preset: tiny}\nrequests:\n${requests.map((r) => `  - ${r}`).join('\n')}\n${more}`;

  it.each([
    ['chunk with a decode', '{name: a, steps: [{decode: 3, chunk: 2}]}', 'requests[0].steps[0].chunk', 4],
    ['chunk with a cache hit', '{name: a, steps: [{prefill: 2}, {cached: 3, chunk: 2}]}', 'requests[0].steps[1].chunk', 4],
    ['a step of two kinds', '{name: a, steps: [{prefill: 3, decode: 1}]}', 'requests[0].steps[0]', 4],
    ['a step of three kinds', '{name: a, steps: [{prefill: 3, decode: 1, cached: 2}]}', 'requests[0].steps[0]', 4],
    ['a step of no kind (chunk alone)', '{name: a, steps: [{chunk: 2}]}', 'requests[0].steps[0]', 4],
    ['more ids than tokens', '{name: a, ids: [1, 2, 3, 4], steps: [{prefill: 2}, {decode: 1}]}', 'requests[0].ids', 4],
    ['an id = vocab_size', '{name: a, ids: [1, 1000], steps: [{prefill: 2}]}', 'requests[0].ids[1]', 4],
    ['no steps', '{name: a, steps: []}', 'requests[0].steps', 4],
    ['zero tokens', '{name: a, steps: [{prefill: 0}]}', 'requests[0].steps[0].prefill', 4],
    ['zero chunk', '{name: a, steps: [{prefill: 4, chunk: 0}]}', 'requests[0].steps[0].chunk', 4],
    ['a name with a space', '{name: "a b", steps: [{prefill: 1}]}', 'requests[0].name', 4],
  ])('%s → invalid-value at %s', (_what, request, field, line) => {
    const e = parseError(sched([request]));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
  });

  it('an id beyond vocab in a later request names that request and id', () => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 2}]}', '{name: b, ids: [3, 4, 5000], steps: [{prefill: 3}]}']));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'requests[1].ids[2]', line: 5 });
    expect(e.message).toContain('5000');
  });

  it('an id checked against an overridden vocab_size', () => {
    const e = parseError(sched(['{name: a, ids: [9, 10], steps: [{prefill: 4}]}']).replace('preset: tiny', 'preset: tiny, vocab_size: 10'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('requests[0].ids[1]');
  });

  it('duplicate request names → invalid-value at the second one', () => {
    const e = parseError(
      sched(['{name: a, steps: [{prefill: 2}]}', '{name: b, steps: [{prefill: 2}]}', '{name: a, steps: [{decode: 1}]}']),
    );
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'requests[2].name', line: 6 });
    expect(e.message).toContain('"a"');
  });

  it.each([
    ['every token counts, decodes and cache hits included', '{name: a, steps: [{cached: 4}, {prefill: 3}, {decode: 2}]}'],
    ['position_offset counts', '{name: a, position_offset: 6, steps: [{prefill: 3}]}'],
  ])('positions beyond max_position_embeddings (%s) → invalid-value at the request', (_what, request) => {
    const e = parseError(sched([request]).replace('preset: tiny', 'preset: tiny, max_position_embeddings: 8'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('requests[0]');
  });

  it('a request that just fits max_position_embeddings loads', () => {
    const s = parseScenario(
      sched(['{name: a, position_offset: 4, steps: [{cached: 2}, {prefill: 1}, {decode: 1}]}']).replace(
        'preset: tiny',
        'preset: tiny, max_position_embeddings: 8',
      ),
    );
    expect(s.requests[0]!.ids).toHaveLength(4);
  });

  it.each([
    ['schedule key', 'schedule:\n  block_sise: 4\n', 'schedule.block_sise', 6, 'block_size'],
    ['schedule key, flow style', 'schedule: {kv_split: 4}\n', 'schedule.kv_split', 5, 'kv_splits'],
    ['schedule key, prefill_kernel', 'schedule:\n  prefil_kernel: fa2\n', 'schedule.prefil_kernel', 6, 'prefill_kernel'],
  ])('%s typo → unknown-key with a did-you-mean', (_what, more, field, line, suggestion) => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 4}]}'], more));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
    expect(e.message).toContain(`"${suggestion}"`);
    expect(e.hint).toContain('context_chunk');
  });

  it.each([
    ['step key', ['name: a', '    steps:', '      - {prefil: 4}'], 'requests[0].steps[0].prefil', 6, 'prefill'],
    ['request key', ['name: a', '    start_stpe: 1', '    steps: [{prefill: 4}]'], 'requests[0].start_stpe', 5, 'start_step'],
    ['misspelt name', ['nmae: a', '    steps: [{prefill: 4}]'], 'requests[0].nmae', 4, 'name'],
  ])('%s typo → unknown-key with a did-you-mean', (_what, lines, field, line, suggestion) => {
    const e = parseError(sched([lines.join('\n')]));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ field, line });
    expect(e.message).toContain(`"${suggestion}"`);
  });

  it.each([
    ['prefill_kernel', 'schedule: {prefill_kernel: fa4}\n', 'schedule.prefill_kernel', ['fa3', 'fa2']],
    ['cold', 'schedule: {cold: maybe}\n', 'schedule.cold', ['auto', 'on', 'off']],
  ])('an unknown %s → invalid-value listing the choices', (_what, more, field, choices) => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 4}]}'], more));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field, line: 5 });
    for (const c of choices) expect(e.message).toContain(c);
    expect(e.message).toContain('did you mean');
  });

  it.each([
    ['block_size', 'schedule: {block_size: 0}\n', 'schedule.block_size'],
    ['context_chunk', 'schedule: {context_chunk: -5}\n', 'schedule.context_chunk'],
    ['kv_splits', 'schedule: {kv_splits: 0}\n', 'schedule.kv_splits'],
    ['decode_threshold', 'schedule: {decode_threshold: 0}\n', 'schedule.decode_threshold'],
    ['an empty requests list', '', 'requests'],
  ])('a bad %s → invalid-value', (_what, more, field) => {
    const text =
      field === 'requests' ? 'name: t\nmodel: {preset: tiny}\nrequests: []\n' : sched(['{name: a, steps: [{prefill: 4}]}'], more);
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe(field);
  });

  it.each([
    ['step is a string', 'expect: {outcome: diverge, step: three}\n', 'expect.step'],
    ['kv_splits is fractional', 'schedule: {kv_splits: 1.5}\n', 'schedule.kv_splits'],
    ['steps is a mapping', '', 'requests[0].steps'],
  ])('wrong type (%s) → invalid-type', (_what, more, field) => {
    const text =
      field === 'requests[0].steps' ? sched(['{name: a, steps: {prefill: 4}}']) : sched(['{name: a, steps: [{prefill: 4}]}'], more);
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where.field).toBe(field);
  });
});
