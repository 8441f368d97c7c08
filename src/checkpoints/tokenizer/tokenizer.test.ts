import { tokenizerFromGguf } from './from-gguf';
import { fixtureBpe, tempJsonTokenizers, withEntries } from './test-utils/fixtures';

const TEXTS = [
  'The capital of France is',
  'Paris is the capital of France.',
  'naïve café 東京',
  '  leading, trailing and   inner   spaces  ',
  'line one\n\nline two\r\n\ttabbed\n',
  'digits 1234567 and 3.14159, year 1889',
  "it's the World's Fair (Paris) -- isn't it?!",
  '<|endoftext|>The capital<|user|> of France',
  'emoji 🙂 and control \u0001 bytes',
  '',
];

const jsonTokenizer = tempJsonTokenizers();

describe('tokenizer.json and the GGUF vocabulary agree', () => {
  const trained = fixtureBpe();
  const fromJson = jsonTokenizer(trained.tokenizerJson, trained.tokenizerConfig);
  const fromGguf = tokenizerFromGguf(trained.ggufEntries, '/m/fixture.gguf');

  test('identical ids for every text', () => {
    for (const text of TEXTS) expect({ text, ids: fromGguf.encode(text) }).toEqual({ text, ids: fromJson.encode(text) });
  });

  test('decode(encode(text)) === text, for both', () => {
    for (const text of TEXTS) {
      expect(fromJson.decode(fromJson.encode(text))).toBe(text);
      expect(fromGguf.decode(fromGguf.encode(text))).toBe(text);
    }
  });

  test('special-token strings become their single id; vocabSize and source are reported', () => {
    expect(fromGguf.encode('<|user|>')).toEqual([401]);
    expect(fromGguf.encode('x<|endoftext|>')).toEqual([...fromGguf.encode('x'), 400]);
    expect(fromJson.vocabSize).toBe(402);
    expect(fromGguf.vocabSize).toBe(402);
    expect(fromGguf.source).toBe('GGUF vocabulary (/m/fixture.gguf)');
    expect(fromJson.source).toMatch(/^tokenizer\.json \(.*tokenizer\.json\)$/);
  });

  test('add_bos_token prepends BOS, like a TemplateProcessing post-processor / LlamaTokenizerFast config', () => {
    const withBos = tokenizerFromGguf(
      withEntries(trained.ggufEntries, { 'tokenizer.ggml.add_bos_token': { type: 'BOOL', value: true } }),
      'bos.gguf',
    );
    const text = 'The capital of France is';
    const plain = fromGguf.encode(text);
    expect(withBos.encode(text)).toEqual([400, ...plain]);
    expect(withBos.decode(withBos.encode(text))).toBe(`<|endoftext|>${text}`);

    const template = {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [],
      special_tokens: {},
    };
    expect(jsonTokenizer({ ...trained.tokenizerJson, post_processor: template }, null).encode(text)).toEqual([400, ...plain]);
    const llamaConfig = { ...trained.tokenizerConfig, tokenizer_class: 'LlamaTokenizerFast', add_bos_token: true };
    expect(jsonTokenizer(trained.tokenizerJson, llamaConfig).encode(text)).toEqual([400, ...plain]);
  });

  test('add_eos_token appends EOS', () => {
    const withEos = tokenizerFromGguf(
      withEntries(trained.ggufEntries, { 'tokenizer.ggml.add_eos_token': { type: 'BOOL', value: true } }),
      'eos.gguf',
    );
    expect(withEos.encode('Paris')).toEqual([...fromGguf.encode('Paris'), 400]);
  });

  test('user-defined tokens (type 4) are never split, and decode to their text', () => {
    const entries = withEntries(trained.ggufEntries, {});
    const tokens = [...(entries.get('tokenizer.ggml.tokens')?.value as string[]), '<think>'];
    const types = [...(entries.get('tokenizer.ggml.token_type')?.value as number[]), 4];
    entries.set('tokenizer.ggml.tokens', { type: 'ARRAY', itemType: 'STRING', value: tokens });
    entries.set('tokenizer.ggml.token_type', { type: 'ARRAY', itemType: 'INT32', value: types });
    const tok = tokenizerFromGguf(entries, 'user.gguf');
    const ids = tok.encode('Paris<think>France');
    expect(ids).toContain(402);
    expect(tok.decode(ids)).toBe('Paris<think>France');
  });
});
