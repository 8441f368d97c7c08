import { byteLevelAlphabet, byteLevelDecode } from './byte-level';
import { tokenizerFromGguf } from './from-gguf';
import { CORPUS } from './test-utils/corpus';
import { fixtureBpe, SPECIALS } from './test-utils/fixtures';
import { trainByteLevelBpe } from './train';

describe('trainByteLevelBpe', () => {
  test('byte tokens come in GPT-2 order: "!" is 0, "a" 64, "Ġ" (space) 220, "Ā" (byte 0) 188, "Ń" 255', () => {
    const a = byteLevelAlphabet();
    expect(a).toHaveLength(256);
    // 255: byte 0xAD (soft hyphen), the last remapped byte
    expect([a[0], a[64], a[65], a[188], a[220], a[255]]).toEqual(['!', 'a', 'b', 'Ā', 'Ġ', 'Ń']);
    expect(new Set(a).size).toBe(256);
  });

  test('hand-checked: "ab ab ab" merges a+b, then Ġ+ab, then stops (no pair left twice)', () => {
    const { tokenizerJson, ggufEntries } = trainByteLevelBpe('ab ab ab', 300);
    expect(tokenizerJson.model.merges).toEqual([
      ['a', 'b'],
      ['Ġ', 'ab'],
    ]);
    expect(ggufEntries.get('tokenizer.ggml.merges')?.value).toEqual(['a b', 'Ġ ab']);
    const tokens = ggufEntries.get('tokenizer.ggml.tokens')?.value as string[];
    expect(tokens).toHaveLength(258);
    expect(tokens.slice(256)).toEqual(['ab', 'Ġab']);
    expect(tokenizerJson.model.vocab['ab']).toBe(256);
    expect(tokenizerJson.model.vocab['Ġab']).toBe(257);
    const tok = tokenizerFromGguf(ggufEntries, 'ab.gguf');
    expect(tok.encode('ab ab')).toEqual([256, 257]);
    expect(tok.encode('ba b')).toEqual([65, 64, 220, 65]);
    expect(tok.vocabSize).toBe(258);
  });

  test('ties go to the lexicographically smallest pair; the vocabSize cap is honoured', () => {
    // "xy" and "ab" both occur twice: ("a","b") < ("x","y")
    const one = trainByteLevelBpe('xy ab xy ab', 257);
    expect(one.tokenizerJson.model.merges).toEqual([['a', 'b']]);
    const two = trainByteLevelBpe('xy ab xy ab', 258);
    expect(two.tokenizerJson.model.merges).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ]);
  });

  test('is deterministic and reaches the requested size on the fixture corpus', () => {
    const a = fixtureBpe();
    const b = fixtureBpe();
    expect(JSON.stringify(a.tokenizerJson)).toBe(JSON.stringify(b.tokenizerJson));
    const tokens = a.ggufEntries.get('tokenizer.ggml.tokens')?.value as string[];
    expect(tokens).toHaveLength(400 + SPECIALS.length);
    expect(tokens.slice(400)).toEqual([...SPECIALS]);
  });

  test('a frequent word of the corpus becomes one token (with its leading space)', () => {
    const tok = tokenizerFromGguf(fixtureBpe().ggufEntries, 'fixture.gguf');
    for (const word of [' capital', ' Paris', ' attention']) {
      expect(CORPUS.split(word).length).toBeGreaterThan(3);
      const ids = tok.encode(word);
      expect(ids).toHaveLength(1);
      expect(tok.decode(ids)).toBe(word);
    }
  });

  test("GGUF entries are what llama.cpp's converter writes for a GPT-2 style BPE", () => {
    const { ggufEntries, tokenizerJson, tokenizerConfig } = fixtureBpe();
    expect([...ggufEntries.keys()]).toEqual([
      'tokenizer.ggml.model',
      'tokenizer.ggml.pre',
      'tokenizer.ggml.tokens',
      'tokenizer.ggml.token_type',
      'tokenizer.ggml.merges',
      'tokenizer.ggml.bos_token_id',
      'tokenizer.ggml.eos_token_id',
      'tokenizer.ggml.add_bos_token',
      'tokenizer.ggml.add_eos_token',
    ]);
    expect(ggufEntries.get('tokenizer.ggml.model')).toEqual({ type: 'STRING', value: 'gpt2' });
    expect(ggufEntries.get('tokenizer.ggml.pre')).toEqual({ type: 'STRING', value: 'gpt-2' });
    expect(ggufEntries.get('tokenizer.ggml.tokens')).toMatchObject({ type: 'ARRAY', itemType: 'STRING' });
    const types = ggufEntries.get('tokenizer.ggml.token_type');
    expect(types).toMatchObject({ type: 'ARRAY', itemType: 'INT32' });
    expect((types?.value as number[]).slice(398)).toEqual([1, 1, 3, 3]);
    expect(ggufEntries.get('tokenizer.ggml.bos_token_id')).toEqual({ type: 'UINT32', value: 400 });
    expect(ggufEntries.get('tokenizer.ggml.add_bos_token')).toEqual({ type: 'BOOL', value: false });
    expect(tokenizerJson.added_tokens.map((t) => [t.id, t.content, t.special])).toEqual([
      [400, '<|endoftext|>', true],
      [401, '<|user|>', true],
    ]);
    expect(tokenizerConfig).toMatchObject({ bos_token: '<|endoftext|>', add_bos_token: false });
    // every merge joins two tokens that exist, into a token that exists
    const vocab = tokenizerJson.model.vocab;
    for (const [l, r] of tokenizerJson.model.merges) {
      expect([vocab[l], vocab[r], vocab[l + r]].every((id) => id !== undefined)).toBe(true);
    }
    expect(byteLevelDecode('ĠParis')).toBe(' Paris');
  });

  test('vocabSize under 256 and repeated specials are invalid-value', () => {
    expect(() => trainByteLevelBpe('x', 255)).toThrow(expect.objectContaining({ code: 'invalid-value' }));
    expect(() => trainByteLevelBpe('x', 300, ['<s>', '<s>'])).toThrow(expect.objectContaining({ code: 'invalid-value' }));
  });
});
