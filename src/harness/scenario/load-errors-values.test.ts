import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('parseScenario: bad values are an MlaDiffError with a code and a location', () => {
  it('tp size that does not divide the heads → invalid-value at cases[0].tp.size', () => {
    const e = parseError(base('cases:\n  - name: a\n    tp: {size: 3, rank: 0}\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ file: 'test.yaml', field: 'cases[0].tp.size', line: 8 });
  });

  it.each([
    [2, 2],
    [2, 5],
    [1, 1],
  ])('tp rank ≥ size (size %i, rank %i) → invalid-value at tp.rank', (size, rank) => {
    const e = parseError(base(`cases:\n  - name: a\n  - name: b\n    tp: {size: ${size}, rank: ${rank}}\n`));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[1].tp.rank', line: 9 });
  });

  it.each([
    [2, 3],
    [4, 1],
    [0, 5],
  ])('heads beyond the model (start %i, count %i) → invalid-value', (start, count) => {
    const e = parseError(base(`cases:\n  - name: a\n    heads: {start: ${start}, count: ${count}}\n`));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[0].heads', line: 8 });
  });

  it('heads and tp together → invalid-value', () => {
    const e = parseError(base('cases:\n  - name: a\n    heads: {start: 0, count: 2}\n    tp: {size: 2, rank: 0}\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('cases[0]');
  });

  it('duplicate case names → invalid-value at the second one', () => {
    const e = parseError(base('cases:\n  - name: a\n  - name: b\n  - name: a\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[2].name', line: 9 });
  });

  it.each([
    ['= vocab_size', '[1, 1000]', 'prompt.ids[1]'],
    ['> vocab_size', '[123456, 2]', 'prompt.ids[0]'],
  ])('token id %s → invalid-value naming the id', (_what, ids, field) => {
    const e = parseError(`name: t\nmodel: {preset: tiny}\nprompt:\n  ids: ${ids}\n`);
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field, line: 4 });
  });

  it('token id checked against an overridden vocab_size', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, vocab_size: 10}\nprompt: {ids: [9, 10]}\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt.ids[1]');
  });

  it('positions beyond max_position_embeddings → invalid-value at prompt', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, max_position_embeddings: 8}\nprompt:\n  length: 9\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt');
  });

  it('start_position counts towards max_position_embeddings', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, max_position_embeddings: 8}\nprompt:\n  ids: [1, 2]\n  start_position: 7\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt');
  });

  it('odd qk_rope_head_dim → invalid-config at model.qk_rope_head_dim', () => {
    const e = parseError('name: t\nmodel:\n  preset: tiny\n  qk_rope_head_dim: 7\nprompt: {ids: [1]}\n');
    expect(e.code).toBe('invalid-config');
    expect(e.where).toMatchObject({ file: 'test.yaml', field: 'model.qk_rope_head_dim', line: 4 });
  });

  it('rope_theta ≤ 1 → invalid-config at model.rope_theta', () => {
    const e = parseError('name: t\nmodel:\n  preset: tiny\n  rope_theta: 0.5\nprompt: {ids: [1]}\n');
    expect(e.code).toBe('invalid-config');
    expect(e.where).toMatchObject({ field: 'model.rope_theta', line: 4 });
  });

  it.each([['both ids and length', 'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: [1]\n  length: 3\n']])(
    '%s → invalid-value at prompt',
    (_what, text) => {
      const e = parseError(text);
      expect(e.code).toBe('invalid-value');
      expect(e.where).toMatchObject({ field: 'prompt', line: 4 });
    },
  );

  it('text but neither ids nor length, and synthetic weights (no tokenizer) → invalid-value at prompt.text', () => {
    const e = parseError('name: t\nmodel: {preset: tiny}\nprompt:\n  text: hello\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'prompt.text', line: 4 });
  });

  it.each([
    ['a YAML list', '- name: t\n- model: tiny\n'],
    ['a bare string', 'just some text\n'],
    ['a number', '42\n'],
    ['an empty file', ''],
    ['only comments', '# nothing here\n'],
  ])('%s instead of a mapping → invalid-type at line 1', (_what, text) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 1 });
  });
});
