/** The tokenizer of a scenario's prompt text, and the vocabulary synthetic weights take from it. */
import type { TextTokenizer } from '../../checkpoints/tokenizer';
import type { MlaConfig } from '../../core/model/config';
import { fail } from './fail';
import type { YamlSource } from './yaml-source';

/** Builds once, on first use (a 129k-token vocabulary takes about a second). */
export function once<T>(build: () => T): () => T {
  let built: { v: T } | undefined;
  return () => (built ??= { v: build() }).v;
}

/**
 * Synthetic weights with a tokenizer: the embedding table has the tokenizer's vocabulary size, so that every id it makes
 * is a row (model.vocab_size, when given, must hold them all).
 */
export function syntheticVocab(config: MlaConfig, given: number | undefined, tok: TextTokenizer, src: YamlSource): MlaConfig {
  if (given !== undefined && given < tok.vocabSize) {
    fail(
      src,
      'invalid-value',
      ['model', 'vocab_size'],
      `vocab_size ${given} is smaller than the ${tok.vocabSize} tokens of ${tok.source}`,
      `remove vocab_size: (synthetic weights then take the tokenizer's ${tok.vocabSize}) or give at least ${tok.vocabSize}`,
    );
  }
  return { ...config, vocab_size: given ?? tok.vocabSize };
}
