import type { GgufEntry } from '../../formats/gguf/types';
import { tokenizerFromGguf } from './from-gguf';
import { TOKENIZER_LIMITS } from './limits';
import { fixtureBpe, withEntries } from './test-utils/fixtures';

/**
 * A GGUF vocabulary (tokenizer.ggml.*) that does not hang together is one coded error at its key (issue 23): arrays of
 * different lengths, tokens that are not strings, BOS/EOS ids outside the vocabulary, malformed merges.
 */
const entries = fixtureBpe().ggufEntries;
const n = (entries.get('tokenizer.ggml.tokens')!.value as string[]).length;
const array = (itemType: GgufEntry['itemType'], value: GgufEntry['value']): GgufEntry => ({ type: 'ARRAY', itemType, value });

const refused = (changes: Record<string, GgufEntry | undefined>, code: string, field: string) => {
  let error: unknown;
  try {
    tokenizerFromGguf(withEntries(entries, changes), 'bad.gguf');
  } catch (e) {
    error = e;
  }
  expect(error).toEqual(expect.objectContaining({ code, where: { file: 'bad.gguf', field } }));
  expect(String((error as Error).message)).not.toMatch(/undefined/);
};

describe('a GGUF vocabulary that does not hang together is tokenizer-invalid at its key', () => {
  test('token_type and scores of another length than tokens', () => {
    const types = (entries.get('tokenizer.ggml.token_type')!.value as number[]).slice();
    refused({ 'tokenizer.ggml.token_type': array('INT32', [...types, 1]) }, 'tokenizer-invalid', 'tokenizer.ggml.token_type');
    refused({ 'tokenizer.ggml.token_type': array('INT32', types.slice(1)) }, 'tokenizer-invalid', 'tokenizer.ggml.token_type');
    refused({ 'tokenizer.ggml.scores': array('FLOAT32', [0, 1]) }, 'tokenizer-invalid', 'tokenizer.ggml.scores');
    refused({ 'tokenizer.ggml.scores': array('STRING', new Array(n).fill('x')) }, 'tokenizer-invalid', 'tokenizer.ggml.scores[0]');
    const odd = types.slice();
    odd[5] = 99;
    refused({ 'tokenizer.ggml.token_type': array('INT32', odd) }, 'tokenizer-invalid', 'tokenizer.ggml.token_type[5]');
  });

  test('tokens that are not strings, or too long', () => {
    const tokens = (entries.get('tokenizer.ggml.tokens')!.value as string[]).slice();
    refused(
      {
        'tokenizer.ggml.tokens': array(
          'INT32',
          tokens.map((_, i) => i),
        ),
      },
      'tokenizer-invalid',
      'tokenizer.ggml.tokens[0]',
    );
    const long = tokens.slice();
    long[7] = 'x'.repeat(TOKENIZER_LIMITS.tokenChars + 1);
    refused({ 'tokenizer.ggml.tokens': array('STRING', long) }, 'limit-exceeded', 'tokenizer.ggml.tokens[7]');
  });

  test('BOS or EOS ids outside the vocabulary, added or not', () => {
    for (const key of ['tokenizer.ggml.bos_token_id', 'tokenizer.ggml.eos_token_id']) {
      refused({ [key]: { type: 'UINT32', value: 3e9 } }, 'tokenizer-invalid', key);
      refused({ [key]: { type: 'INT32', value: -1 } }, 'tokenizer-invalid', key);
      refused({ [key]: { type: 'UINT64', value: 2n ** 63n } }, 'tokenizer-invalid', key);
      refused({ [key]: { type: 'STRING', value: '1' } }, 'tokenizer-invalid', key);
    }
  });

  test('malformed merges', () => {
    for (const bad of ['ab', 'a ', ' ']) {
      refused({ 'tokenizer.ggml.merges': array('STRING', [bad]) }, 'tokenizer-invalid', 'tokenizer.ggml.merges[0]');
    }
    refused({ 'tokenizer.ggml.merges': array('INT32', [1]) }, 'tokenizer-invalid', 'tokenizer.ggml.merges[0]');
    refused({ 'tokenizer.ggml.merges': { type: 'STRING', value: 'a b' } }, 'tokenizer-invalid', 'tokenizer.ggml.merges');
  });

  test('the fixture itself still loads', () => {
    expect(tokenizerFromGguf(entries, 'ok.gguf').vocabSize).toBe(n);
  });
});
