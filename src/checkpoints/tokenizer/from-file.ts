import { MlaDiffError } from '../../errors';
import { openGguf } from '../../formats/gguf/read';
import { tokenizerFromGguf } from './from-gguf';
import { tokenizerFromJson } from './from-json';
import type { TextTokenizer } from './types';

/** A tokenizer from a file: a .gguf's vocabulary (tokenizer.ggml.*, header only), else an HF tokenizer.json. */
export function tokenizerFromFile(path: string): TextTokenizer {
  if (!/\.gguf$/i.test(path)) return tokenizerFromJson(path);
  const m = openGguf(path);
  if (!m.metadata.has('tokenizer.ggml.tokens')) {
    throw new MlaDiffError(
      'tokenizer-invalid',
      `${path} holds no vocabulary (no tokenizer.ggml.tokens)`,
      { file: path, field: 'tokenizer.ggml.tokens' },
      'give a GGUF converted with its vocabulary, or the model tokenizer.json',
    );
  }
  return tokenizerFromGguf(m.metadata, path);
}
