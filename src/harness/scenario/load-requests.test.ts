import { parseScenario } from './load';
import { syntheticIds } from './requests';
import { failure } from '../../test-utils/errors';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('parseScenario: requests and schedule', () => {
  /** A tiny scenario with a schedule: `requests` and `more` are YAML lines (requests indented as list items). */
  const sched = (requests: string[], more = '') =>
    `name: t\nmodel: {preset: tiny}\nrequests:\n${requests.map((r) => `  - ${r}`).join('\n')}\n${more}`;
  const DEFAULT_SCHEDULE = {
    blockSize: 16,
    decodeThreshold: 1,
    contextChunk: 65_536,
    kvSplits: 1,
    prefillKernel: 'fa3',
    cold: 'auto',
    attention: 'auto',
  };

  it('a request with only name and steps gets the defaults, ids from the seed', () => {
    const s = parseScenario(sched(['{name: a, steps: [{prefill: 4}]}']));
    expect(s.requests).toEqual([
      {
        name: 'a',
        ids: syntheticIds(4, 1000, 0, 'request_ids:a'),
        startStep: 0,
        positionOffset: 0,
        phases: [{ kind: 'prefill', tokens: 4 }],
      },
    ]);
    expect(s.schedule).toEqual(DEFAULT_SCHEDULE);
    expect(s.text).toBeUndefined();
    expect(s.cases).toEqual([{ name: 'full', heads: { start: 0, count: 4 }, label: expect.any(String) }]);
  });

  it('reads every field of a request and every kind of step', () => {
    const s = parseScenario(
      [
        'name: t',
        'model: {preset: tiny}',
        'requests:',
        '  - name: chat',
        '    ids: [7, 8]',
        '    start_step: 2',
        '    position_offset: 100',
        '    steps: [{prefill: 12, chunk: 5}, {decode: 3}, {cached: 4}, {prefill: 2}]',
        '',
      ].join('\n'),
    );
    expect(s.requests).toHaveLength(1);
    const r = s.requests[0]!;
    expect(r).toMatchObject({ name: 'chat', startStep: 2, positionOffset: 100 });
    expect(r.phases).toEqual([
      { kind: 'prefill', tokens: 12, chunk: 5 },
      { kind: 'decode', tokens: 3 },
      { kind: 'cached', tokens: 4 },
      { kind: 'prefill', tokens: 2 },
    ]);
    // Given ids lead; the rest of the 21 tokens come from the request's own stream.
    expect(r.ids).toHaveLength(21);
    expect(r.ids.slice(0, 2)).toEqual([7, 8]);
    expect(r.ids.slice(2)).toEqual(syntheticIds(21, 1000, 0, 'request_ids:chat').slice(2));
  });

  it('as many ids as tokens are kept verbatim', () => {
    expect(parseScenario(sched(['{name: a, ids: [1, 2, 3], steps: [{prefill: 2}, {decode: 1}]}'])).requests[0]!.ids).toEqual([1, 2, 3]);
  });

  it('requests keep their order; each draws its own ids, from the weight seed', () => {
    const text = sched(['{name: a, steps: [{prefill: 8}]}', '{name: b, steps: [{prefill: 8}]}'], 'weights: {synthetic: {seed: 5}}\n');
    const s = parseScenario(text);
    expect(s.requests.map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.requests[0]!.ids).not.toEqual(s.requests[1]!.ids);
    expect(s.requests[0]!.ids).toEqual(syntheticIds(8, 1000, 5, 'request_ids:a'));
    expect(parseScenario(text.replace('seed: 5', 'seed: 6')).requests[0]!.ids).not.toEqual(s.requests[0]!.ids);
    expect(parseScenario(text).requests).toEqual(s.requests);
  });

  it('a prompt: is one request named prompt, prefilled at start_position', () => {
    const s = parseScenario('name: t\nmodel: {preset: tiny}\nprompt: {text: hi, ids: [4, 5, 6], start_position: 7}\n');
    expect(s.text).toBe('hi');
    expect(s.requests).toEqual([
      { name: 'prompt', ids: [4, 5, 6], startStep: 0, positionOffset: 7, phases: [{ kind: 'prefill', tokens: 3 }] },
    ]);
  });

  it('reads every schedule: field', () => {
    const s = parseScenario(
      sched(
        ['{name: a, steps: [{prefill: 4}]}'],
        'schedule: {block_size: 4, decode_threshold: 2, context_chunk: 5, kv_splits: 3, prefill_kernel: fa2, cold: on, attention: fused}\n',
      ),
    );
    expect(s.schedule).toEqual({
      blockSize: 4,
      decodeThreshold: 2,
      contextChunk: 5,
      kvSplits: 3,
      prefillKernel: 'fa2',
      cold: 'on',
      attention: 'fused',
    });
  });

  it('schedule.logits_rows is kept as given; absent, the schedule has no logitsRows', () => {
    expect(parseScenario(base('schedule: {logits_rows: [0, 17, -1]}\n')).schedule).toEqual({
      ...DEFAULT_SCHEDULE,
      logitsRows: [0, 17, -1],
    });
    expect(parseScenario(base()).schedule).not.toHaveProperty('logitsRows');
  });

  it('a partial schedule: keeps the defaults of the rest, with a prompt too', () => {
    const s = parseScenario(base('schedule: {kv_splits: 4}\n'));
    expect(s.schedule).toEqual({ ...DEFAULT_SCHEDULE, kvSplits: 4 });
    expect(s.requests.map((r) => r.name)).toEqual(['prompt']);
  });

  it.each<[string, string, string | undefined]>([
    ['prompt and requests together', `${base()}requests:\n  - {name: a, steps: [{prefill: 1}]}\n`, 'requests'],
    ['neither prompt nor requests', 'name: t\nmodel: {preset: tiny}\n', undefined],
  ])('%s → invalid-value naming both', (_what, text, field) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.message).toContain('prompt');
    expect(e.message).toContain('requests');
    expect(e.where.file).toBe('test.yaml');
    expect(e.where.line).toEqual(expect.any(Number));
    expect(e.where.field || undefined).toBe(field);
  });
});
