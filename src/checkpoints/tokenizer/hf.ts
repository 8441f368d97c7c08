import type * as Hf from '@huggingface/tokenizers' with { 'resolution-mode': 'import' };
import { MlaDiffError } from '../../errors';
import { bosToken, specialsAround, withBos } from './bos';
import { TOKENIZER_LIMITS as L } from './limits';
import { checkTokenizerJson, type CheckedTokenizer } from './schema';
import { SchemaFailure } from './schema-check';
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

/** A library message as ours: it never says `undefined` (the library's messages name a missing field so). */
function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\bundefined\b/g, 'a missing value').slice(0, 500);
}

/** What the library is given besides tokenizer.json: the BOS this tool looks for, and the checked config fields it reads. */
export interface HfConfig {
  bos_token?: string;
  library: Record<string, unknown>;
}

const HINT = 'the tokenizer must be an HF tokenizers tokenizer.json (a BPE, WordPiece or Unigram model)';

/** The tokenizer.json checked (schema.ts), a failure named by file and field. */
function checked(json: object, file: string): CheckedTokenizer {
  try {
    return checkTokenizerJson(json as Record<string, unknown>);
  } catch (e) {
    if (!(e instanceof SchemaFailure)) throw e;
    throw new MlaDiffError(e.limit ? 'limit-exceeded' : 'tokenizer-invalid', e.message, { file, field: e.field }, HINT);
  }
}

/** The longest text encode takes: shorter for vocabularies whose encoding costs more per character (limits.ts). */
function textBound(c: CheckedTokenizer): number {
  const wordPiece = (c.json.model as { max_input_chars_per_word?: number | null }).max_input_chars_per_word ?? 100;
  const perChar = c.type === 'Unigram' ? c.longestPiece : c.type === 'WordPiece' ? wordPiece * wordPiece : 1;
  return Math.max(1024, Math.min(L.textChars, Math.floor(L.encodeWork / Math.max(1, perChar))));
}

/**
 * Wraps an HF tokenizer.json object (+ the checked tokenizer_config fields) as a TextTokenizer. `file` is where errors
 * point. The object is checked first (every field the library reads, every id and size bounded); any failure of the
 * library to build it, or to encode or decode, is 'tokenizer-invalid'.
 */
export function hfTextTokenizer(json: object, config: HfConfig, source: string, file: string): TextTokenizer {
  const c = checked(json, file);
  const failed = (what: string, e: unknown): MlaDiffError => {
    if (e instanceof MlaDiffError) return e;
    return new MlaDiffError('tokenizer-invalid', `cannot ${what} with ${source}: ${message(e)}`, { file }, HINT);
  };
  let tok: Hf.Tokenizer;
  try {
    tok = new (hfLibrary().Tokenizer)(c.json, config.library);
  } catch (e) {
    throw failed('build a tokenizer', e);
  }
  const vocabSize = c.vocabSize;
  const maxText = textBound(c);
  const style = pieceStyleOf(c.json.decoder);
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
    if (text.length > maxText) {
      throw new MlaDiffError('limit-exceeded', `a text of ${text.length} characters; ${source} encodes at most ${maxText}`, {
        field: 'text',
      });
    }
    let out: { ids: number[]; tokens: string[] };
    try {
      // (the package's Encoding type does not resolve under Node16 resolution; it is { ids: number[]; tokens: string[] })
      out = tok.encode(text, { add_special_tokens: specials }) as { ids: number[]; tokens: string[] };
    } catch (e) {
      throw failed('encode a text', e);
    }
    const { ids, tokens } = out;
    const bad = ids.findIndex((id) => !Number.isInteger(id));
    if (bad >= 0) {
      const piece = String(tokens[bad] ?? '');
      throw new MlaDiffError(
        'tokenizer-invalid',
        `${source}: the piece ${JSON.stringify(piece.slice(0, 60))} is not in the vocabulary and there is no unknown token`,
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
      try {
        return tok.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
      } catch (e) {
        throw failed('decode ids', e);
      }
    },
    tokens(ids: readonly number[]): string[] {
      checkIds(ids);
      return ids.map((id) => added.get(id)?.content ?? pieceText(tok.id_to_token(id) ?? '', style));
    },
  };
}
