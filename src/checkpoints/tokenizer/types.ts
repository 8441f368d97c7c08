/**
 * Whether the prompt starts with the vocabulary's BOS: 'auto' as the tokenizer's own post-processor (tokenizer.json,
 * tokenizer_config.json's add_bos_token, GGUF's add_bos_token) says; 'true' always one in front; 'false' none added.
 * A BOS written out in the text is a special token of the text either way.
 */
export type BosMode = 'auto' | 'true' | 'false';
export const BOS_MODES: readonly BosMode[] = ['auto', 'true', 'false'];

/** A text tokenizer built from a model's own vocabulary (tokenizer.json or GGUF `tokenizer.ggml.*`). */
export interface TextTokenizer {
  /** Where the vocabulary came from, e.g. `tokenizer.json (/m/tokenizer.json)` or `GGUF vocabulary (/m/x.gguf)`. */
  readonly source: string;
  /** Number of token ids (highest id + 1). */
  readonly vocabSize: number;
  /** The BOS the vocabulary names (tokenizer_config.json bos_token, GGUF bos_token_id, or the post-processor's first). */
  readonly bos: { id: number; token: string } | undefined;
  /** Whether encode(text) (bos 'auto') puts the BOS in front by itself. */
  readonly addsBos: boolean;
  /**
   * Token ids for `text`, special-token strings as their ids, with the EOS the vocabulary asks for and the BOS as `bos` says
   * (default 'auto'). 'true' without a BOS in the vocabulary is invalid-value (field bos).
   */
  encode(text: string, bos?: BosMode): number[];
  /** Text for `ids`, special tokens written out, no clean-up of spaces (so `decode(encode(t)) === t` without BOS). */
  decode(ids: readonly number[]): string;
  /**
   * Each id's own text, for display: a special token as written, a piece as the text it stands for (' capital'), bytes of
   * a character split across tokens as <0xNN>. Ids outside the vocabulary are invalid-value.
   */
  tokens(ids: readonly number[]): string[];
}

/** An entry of tokenizer.json's `added_tokens`. */
export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** The subset of the HF tokenizer.json format this module writes (a byte-level BPE). */
export interface TokenizerJson {
  version: string;
  truncation: null;
  padding: null;
  added_tokens: AddedTokenJson[];
  normalizer: null;
  pre_tokenizer: object;
  post_processor: object | null;
  decoder: object;
  model: {
    type: 'BPE';
    dropout: null;
    unk_token: null;
    continuing_subword_prefix: null;
    end_of_word_suffix: null;
    fuse_unk: boolean;
    byte_fallback: boolean;
    ignore_merges: boolean;
    vocab: Record<string, number>;
    merges: [string, string][];
  };
}
