/**
 * What a tokenizer file may state, checked before anything is built from it. The largest real vocabularies hold about
 * 262k tokens (Gemma 3), their tokenizer.json about 35 MB, their longest piece a few hundred characters; these bounds sit
 * well above that and well below what would take the run minutes or gigabytes (the library sizes arrays by the highest id
 * and loops to it; synthetic weights take the vocabulary size as embedding rows).
 */
export const TOKENIZER_LIMITS = Object.freeze({
  /** tokenizer.json / tokenizer_config.json bytes. */
  fileBytes: 64 * 1024 * 1024,
  /** Token ids lie in [0, vocabIds): 4M. */
  vocabIds: 1 << 22,
  /** Entries of model.vocab, added_tokens, merges, GGUF tokenizer.ggml.* arrays. */
  entries: 1 << 22,
  /** Characters of one vocabulary piece or added token. */
  tokenChars: 4096,
  /** Characters of a pre-tokenizer or normalizer regex. */
  patternChars: 64 * 1024,
  /** Characters of any other string a component states (a replacement, a prefix). */
  stringChars: 4096,
  /** Sequence normalizers / pre-tokenizers / post-processors / decoders nested in one another. */
  componentDepth: 8,
  /** Items of one Sequence, or of a template (single, pair). */
  componentItems: 256,
  /** WordPiece's max_input_chars_per_word (HF's default is 100; its cost per word grows with the cube). */
  wordPieceChars: 256,
  /** Characters of a text to encode. */
  textChars: 1 << 20,
  /**
   * Encode work: the text's characters times the longest piece (Unigram's lattice) or the square of WordPiece's word
   * bound must stay under this, so a shorter text is allowed for such vocabularies.
   */
  encodeWork: 1 << 28,
});
