/** A text tokenizer built from a model's own vocabulary (tokenizer.json or GGUF `tokenizer.ggml.*`). */
export interface TextTokenizer {
  /** Where the vocabulary came from, e.g. `tokenizer.json (/m/tokenizer.json)` or `GGUF vocabulary (/m/x.gguf)`. */
  readonly source: string;
  /** Number of token ids (highest id + 1). */
  readonly vocabSize: number;
  /** Token ids for `text`, with the BOS/EOS the vocabulary asks for; special-token strings become their ids. */
  encode(text: string): number[];
  /** Text for `ids`, special tokens written out, no clean-up of spaces (so `decode(encode(t)) === t` without BOS). */
  decode(ids: readonly number[]): string;
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
