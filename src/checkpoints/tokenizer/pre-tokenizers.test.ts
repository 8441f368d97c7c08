import { byteLevelDecode } from './byte-level';
import { hfLibrary } from './hf';
import { preTokenizerFor, supportedPreTokenizers } from './pre-tokenizers';

/** The pieces the pre-tokenizer for `pre` cuts `text` into (as text, not byte-level characters). */
function pieces(pre: string, text: string): string[] {
  const spec = preTokenizerFor(pre);
  if (!spec) throw new Error(`unsupported ${pre}`);
  const json = {
    added_tokens: [],
    normalizer: null,
    post_processor: null,
    decoder: null,
    pre_tokenizer: spec.preTokenizer,
    model: { type: 'BPE', vocab: { a: 0 }, merges: [] },
  };
  const tok = new (hfLibrary().Tokenizer)(json, {});
  return (tok.pre_tokenizer?.pre_tokenize(text) ?? []).map(byteLevelDecode);
}

const TEXT = "Hello world's 12345 東京!!\n\n x";

describe('pre-tokenizers (llama.cpp src/llama-vocab.cpp regexes)', () => {
  test('gpt-2: GPT-2 regex, numbers not cut', () => {
    expect(pieces('gpt-2', TEXT)).toEqual(['Hello', ' world', "'s", ' 12345', ' 東京', '!!', '\n\n', ' x']);
  });

  test('llama-bpe and glm4: digits by 3, letters take one leading non-letter, punctuation keeps its newlines', () => {
    const expected = ['Hello', ' world', "'s", ' ', '123', '45', ' 東京', '!!\n\n', ' x'];
    for (const pre of ['llama-bpe', 'llama3', 'glm4', 'chatglm-bpe']) expect(pieces(pre, TEXT)).toEqual(expected);
    expect(preTokenizerFor('llama-bpe')).toMatchObject({ ignoreMerges: true, addBosDefault: true });
    expect(preTokenizerFor('glm4')).toMatchObject({ ignoreMerges: false, addBosDefault: false });
  });

  test('deepseek-v3: digits by 3, CJK runs isolated, then the letter/punctuation split', () => {
    expect(pieces('deepseek-v3', TEXT)).toEqual(['Hello', ' world', "'s", ' ', '123', '45', ' ', '東京', '!!\n\n', ' x']);
    expect(pieces('deepseek-v3', '(Paris)')).toEqual(['(Paris', ')']);
  });

  test("default: llama.cpp's own split (punctuation runs first, digits by 3), not GPT-2's", () => {
    expect(pieces('default', TEXT)).toEqual(['Hello', ' world', "'", 's', ' ', '123', '45', ' 東京', '!!', '\n\n', ' x']);
  });

  test('the supported ids are listed; others are undefined', () => {
    expect(supportedPreTokenizers()).toEqual(expect.arrayContaining(['default', 'gpt-2', 'llama-bpe', 'glm4', 'deepseek-v3']));
    expect(preTokenizerFor('qwen2')).toBeUndefined();
  });
});
