import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenizerFromGguf } from './from-gguf';
import { tokenizerFromJson } from './from-json';
import { fixtureBpe, withEntries } from './test-utils/fixtures';

const code = (c: string) => expect.objectContaining({ code: c });
const where = (field: string) => expect.objectContaining({ code: 'tokenizer-invalid', where: { file: 'bad.gguf', field } });

describe('tokenizerFromGguf errors', () => {
  const entries = fixtureBpe().ggufEntries;
  const str = (value: string) => ({ type: 'STRING' as const, value });

  test('unknown tokenizer.ggml.model is tokenizer-invalid', () => {
    for (const model of ['llama', 'bert', 't5', 'weird']) {
      expect(() => tokenizerFromGguf(withEntries(entries, { 'tokenizer.ggml.model': str(model) }), 'bad.gguf')).toThrow(
        where('tokenizer.ggml.model'),
      );
    }
    expect(() => tokenizerFromGguf(withEntries(entries, { 'tokenizer.ggml.model': undefined }), 'bad.gguf')).toThrow(
      where('tokenizer.ggml.model'),
    );
  });

  test('unsupported tokenizer.ggml.pre is tokenizer-invalid', () => {
    expect(() => tokenizerFromGguf(withEntries(entries, { 'tokenizer.ggml.pre': str('qwen2') }), 'bad.gguf')).toThrow(
      where('tokenizer.ggml.pre'),
    );
  });

  test('missing tokens or merges are tokenizer-invalid', () => {
    for (const key of ['tokenizer.ggml.tokens', 'tokenizer.ggml.merges']) {
      expect(() => tokenizerFromGguf(withEntries(entries, { [key]: undefined }), 'bad.gguf')).toThrow(where(key));
    }
  });

  test('wrongly typed, duplicate or malformed entries are tokenizer-invalid', () => {
    const bad: Array<[string, Parameters<typeof withEntries>[1]]> = [
      ['tokenizer.ggml.tokens', { 'tokenizer.ggml.tokens': str('abc') }],
      ['tokenizer.ggml.tokens[1]', { 'tokenizer.ggml.tokens': { type: 'ARRAY', itemType: 'STRING', value: ['a', 'a'] } }],
      ['tokenizer.ggml.merges[0]', { 'tokenizer.ggml.merges': { type: 'ARRAY', itemType: 'STRING', value: ['ab'] } }],
      ['tokenizer.ggml.token_type', { 'tokenizer.ggml.token_type': { type: 'ARRAY', itemType: 'INT32', value: [1] } }],
      [
        'tokenizer.ggml.bos_token_id',
        {
          'tokenizer.ggml.add_bos_token': { type: 'BOOL', value: true },
          'tokenizer.ggml.bos_token_id': undefined,
        },
      ],
      [
        'tokenizer.ggml.bos_token_id',
        {
          'tokenizer.ggml.add_bos_token': { type: 'BOOL', value: true },
          'tokenizer.ggml.bos_token_id': { type: 'UINT32', value: 99999 },
        },
      ],
    ];
    for (const [field, changes] of bad) {
      expect(() => tokenizerFromGguf(withEntries(entries, changes), 'bad.gguf')).toThrow(where(field));
    }
  });

  test('decoding an id outside the vocabulary is invalid-value', () => {
    expect(() => tokenizerFromGguf(entries, 'ok.gguf').decode([0, 402])).toThrow(code('invalid-value'));
  });
});

describe('tokenizerFromJson errors', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-tokenizer-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test('a missing file is file-not-found', () => {
    expect(() => tokenizerFromJson(join(dir, 'nope', 'tokenizer.json'))).toThrow(code('file-not-found'));
  });

  test('malformed tokenizer.json is tokenizer-invalid', () => {
    for (const text of ['{ not json', '[1, 2]', '{"version": "1.0"}', '{"model": {"type": "Nope"}}', '{"model": {}, "added_tokens": 3}']) {
      expect(() => tokenizerFromJson(write('tokenizer.json', text))).toThrow(code('tokenizer-invalid'));
    }
  });

  test('malformed tokenizer_config.json beside it is tokenizer-invalid', () => {
    const path = write('tokenizer.json', JSON.stringify(fixtureBpe().tokenizerJson));
    write('tokenizer_config.json', '{ nope');
    expect(() => tokenizerFromJson(path)).toThrow(
      expect.objectContaining({
        code: 'tokenizer-invalid',
        where: { file: join(dir, 'tokenizer_config.json') },
      }),
    );
    rmSync(join(dir, 'tokenizer_config.json'));
    expect(tokenizerFromJson(path).encode('Paris')).toHaveLength(1);
  });
});
