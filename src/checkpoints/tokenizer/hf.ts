import type * as Hf from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import { MlaDiffError } from '../../errors';
import { bosToken, specialsAround, withBos } from './bos';
import { pieceStyleOf, pieceText } from './token-text';
import type { BosMode, TextTokenizer } from './types';

/**
 * @huggingface/tokenizers ships ESM types but a CommonJS build (its `require` export); load that build at run time
 * and take the types from the ESM declarations.
 */
export function hfLibrary(): typeof Hf {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@huggingface/tokenizers') as typeof Hf;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Wraps an HF tokenizer.json object (+ tokenizer_config object) as a TextTokenizer. `file` is where errors point.
 * Any failure of the library to build it is 'tokenizer-invalid'.
 */
export function hfTextTokenizer(json: object, config: object, source: string, file: string): TextTokenizer {
  let tok: Hf.Tokenizer;
  try {
    tok = new (hfLibrary().Tokenizer)(json, config);
  } catch (e) {
    throw new MlaDiffError(
      'tokenizer-invalid',
      `cannot build a tokenizer from ${source}: ${message(e)}`,
      { file },
      'the tokenizer must be an HF tokenizers tokenizer.json (a BPE, WordPiece or Unigram model)',
    );
  }
  let maxId = -1;
  for (const id of tok.get_vocab(true).values()) if (Number.isInteger(id) && id > maxId) maxId = id;
  const vocabSize = maxId + 1;
  const style = pieceStyleOf((json as { decoder?: unknown }).decoder);
  const added = tok.get_added_tokens_decoder();

  const checkIds = (ids: readonly number[]) => {
    const bad = ids.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
    if (bad >= 0) {
      throw new MlaDiffError('invalid-value', `token id ${ids[bad]} is outside the vocabulary (0..${vocabSize - 1}) of ${source}`, {
        field: `ids[${bad}]`,
      });
    }
  };
  const raw = (text: string, specials: boolean): number[] => {
    // (the package's Encoding type does not resolve under Node16 resolution; it is { ids: number[]; tokens: string[] })
    const { ids, tokens } = tok.encode(text, { add_special_tokens: specials }) as { ids: number[]; tokens: string[] };
    const bad = ids.findIndex((id) => !Number.isInteger(id));
    if (bad >= 0) {
      throw new MlaDiffError(
        'tokenizer-invalid',
        `${source}: the piece ${JSON.stringify(tokens[bad])} is not in the vocabulary and there is no unknown token`,
        { file },
        'a byte-level BPE vocabulary must hold all 256 byte tokens',
      );
    }
    return ids;
  };
  const around = specialsAround(raw);
  const bos = bosToken(
    config,
    around.prefix,
    (t) => tok.token_to_id(t),
    (id) => tok.id_to_token(id),
  );
  const addsBos = bos !== undefined && around.prefix.includes(bos.id);

  return {
    source,
    vocabSize,
    bos,
    addsBos,
    encode(text: string, mode: BosMode = 'auto'): number[] {
      if (mode === 'auto') return raw(text, true);
      if (mode === 'true' && !bos) {
        throw new MlaDiffError(
          'invalid-value',
          `bos: true, but ${source} names no BOS token`,
          { field: 'bos' },
          'name it (bos_token in tokenizer_config.json beside tokenizer.json, tokenizer.ggml.bos_token_id in a GGUF), or use bos: auto',
        );
      }
      return [...withBos(around.prefix, bos?.id, mode === 'true'), ...raw(text, false), ...around.suffix];
    },
    decode(ids: readonly number[]): string {
      checkIds(ids);
      if (ids.length === 0) return '';
      return tok.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    },
    tokens(ids: readonly number[]): string[] {
      checkIds(ids);
      return ids.map((id) => added.get(id)?.content ?? pieceText(tok.id_to_token(id) ?? '', style));
    },
  };
}
