import { specialsAround } from './bos';
import { tokenizerFromGguf } from './from-gguf';
import { fixtureBpe, tempJsonTokenizers, withEntries } from './test-utils/fixtures';

const BOS = 400; // <|endoftext|>, the fixture's BOS = EOS
const TEXT = 'The capital of France is';

const jsonTokenizer = tempJsonTokenizers();

describe('bos: auto | true | false', () => {
  const trained = fixtureBpe();
  const plain = tokenizerFromGguf(trained.ggufEntries, 'plain.gguf').encode(TEXT);
  const adding = tokenizerFromGguf(
    withEntries(trained.ggufEntries, { 'tokenizer.ggml.add_bos_token': { type: 'BOOL', value: true } }),
    'bos.gguf',
  );
  const notAdding = tokenizerFromGguf(trained.ggufEntries, 'plain.gguf');

  test('GGUF: auto follows add_bos_token; true and false force it; the BOS is bos_token_id either way', () => {
    expect([adding.addsBos, notAdding.addsBos]).toEqual([true, false]);
    expect(adding.bos).toEqual({ id: BOS, token: '<|endoftext|>' });
    expect(notAdding.bos).toEqual({ id: BOS, token: '<|endoftext|>' });
    expect(adding.encode(TEXT)).toEqual([BOS, ...plain]);
    expect(adding.encode(TEXT, 'false')).toEqual(plain);
    expect(adding.encode(TEXT, 'true')).toEqual([BOS, ...plain]);
    expect(notAdding.encode(TEXT)).toEqual(plain);
    expect(notAdding.encode(TEXT, 'true')).toEqual([BOS, ...plain]);
    expect(notAdding.encode(TEXT, 'false')).toEqual(plain);
  });

  test('a BOS written in the text stays; true still adds one in front, false adds none', () => {
    const text = `<|endoftext|>${TEXT}`;
    expect(notAdding.encode(text, 'false')).toEqual([BOS, ...plain]);
    expect(notAdding.encode(text, 'true')).toEqual([BOS, BOS, ...plain]);
    expect(adding.encode(text, 'false')).toEqual([BOS, ...plain]);
  });

  test('an EOS the vocabulary appends stays whatever bos says', () => {
    const eos = tokenizerFromGguf(
      withEntries(trained.ggufEntries, {
        'tokenizer.ggml.add_bos_token': { type: 'BOOL', value: true },
        'tokenizer.ggml.add_eos_token': { type: 'BOOL', value: true },
      }),
      'eos.gguf',
    );
    expect(eos.encode(TEXT)).toEqual([BOS, ...plain, BOS]);
    expect(eos.encode(TEXT, 'false')).toEqual([...plain, BOS]);
    expect(eos.encode(TEXT, 'true')).toEqual([BOS, ...plain, BOS]);
  });

  test("tokenizer.json: the config's bos_token; a template's first special token; none at all", () => {
    const withConfig = jsonTokenizer(trained.tokenizerJson, trained.tokenizerConfig);
    expect(withConfig.bos).toEqual({ id: BOS, token: '<|endoftext|>' });
    expect([withConfig.addsBos, withConfig.encode(TEXT, 'true')]).toEqual([false, [BOS, ...plain]]);
    const template = {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<|user|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [],
      special_tokens: {},
    };
    const templated = jsonTokenizer({ ...trained.tokenizerJson, post_processor: template }, null);
    expect([templated.bos, templated.addsBos]).toEqual([{ id: 401, token: '<|user|>' }, true]);
    expect(templated.encode(TEXT, 'false')).toEqual(plain);
    const none = jsonTokenizer(trained.tokenizerJson, null);
    expect(none.bos).toBeUndefined();
    expect(none.encode(TEXT, 'false')).toEqual(plain);
    expect(() => none.encode(TEXT, 'true')).toThrow(expect.objectContaining({ code: 'invalid-value', where: { field: 'bos' } }));
  });

  test('tokens(): each id as the text it stands for', () => {
    const ids = adding.encode(' Paris, France\n\t');
    const tokens = adding.tokens(ids);
    expect(tokens[0]).toBe('<|endoftext|>');
    expect(tokens).toContain(' Paris');
    expect(tokens.slice(1).join('')).toBe(' Paris, France\n\t');
    expect(() => adding.tokens([402])).toThrow(expect.objectContaining({ code: 'invalid-value' }));
  });
});

describe('specialsAround', () => {
  test('the template around a probe; a probe the vocabulary lacks is skipped; none at all: nothing around', () => {
    const around = specialsAround((text, specials) => (specials ? [1, text.length + 10, 2] : [text.length + 10]));
    expect(around).toEqual({ prefix: [1], suffix: [2] });
    const lacksA = specialsAround((text, specials) => {
      if (text === 'a') throw new Error('no such piece');
      return specials ? [7, 99] : [99];
    });
    expect(lacksA).toEqual({ prefix: [7], suffix: [] });
    expect(
      specialsAround(() => {
        throw new Error('nothing');
      }),
    ).toEqual({ prefix: [], suffix: [] });
  });
});
