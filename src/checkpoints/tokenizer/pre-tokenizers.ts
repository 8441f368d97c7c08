/**
 * The pre-tokenizer of each supported `tokenizer.ggml.pre` id, as an HF tokenizer.json `pre_tokenizer` object.
 *
 * Regexes and per-id flags are llama.cpp's: ggml-org/llama.cpp `src/llama-vocab.cpp` (read at commit 00ad355e),
 * `llm_tokenizer_bpe` constructor (regex_exprs per LLAMA_VOCAB_PRE_TYPE_*) and `llama_vocab::impl::load`
 * (pre id string → type, ignore_merges, add_bos). llama.cpp applies the regexes of a list one after another, each
 * splitting the pieces of the previous one and keeping the text between matches (HF `Split`, behavior "Isolated"),
 * then maps bytes to GPT-2's alphabet (HF `ByteLevel` with use_regex false).
 */

export interface PreTokenizerSpec {
  /** tokenizer.json `pre_tokenizer`. */
  preTokenizer: object;
  /** llama.cpp sets ignore_merges (a whole pre-token found in the vocabulary is taken as is). */
  ignoreMerges: boolean;
  /** llama.cpp's add_bos default for this id (tokenizer.ggml.add_bos_token overrides it). */
  addBosDefault: boolean;
}

const BYTE_LEVEL_NO_REGEX = Object.freeze({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false });

function regexSequence(regexes: readonly string[]): object {
  return {
    type: 'Sequence',
    pretokenizers: [
      ...regexes.map((r) => ({ type: 'Split', pattern: { Regex: r }, behavior: 'Isolated', invert: false })),
      { ...BYTE_LEVEL_NO_REGEX },
    ],
  };
}

/**
 * GPT-2 (LLAMA_VOCAB_PRE_TYPE_GPT2); llama.cpp lists it without the trailing `|\s+`, which its hand-written gpt2 splitter implements
 * anyway.
 */
const GPT2 = String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`;

/**
 * LLAMA_VOCAB_PRE_TYPE_LLAMA3 and LLAMA_VOCAB_PRE_TYPE_CHATGLM4 use this same regex
 * (llama.cpp's case-insensitive-free rewrite of `(?i:'s|...)`).
 */
const LLAMA3 =
  String.raw`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|` +
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

/** LLAMA_VOCAB_PRE_TYPE_DEEPSEEK3_LLM. The CJK class is [一-龥぀-ゟ゠-ヿ]. */
const DEEPSEEK3 = [
  String.raw`\p{N}{1,3}`,
  '[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+',
  String.raw`[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_` +
    '`' +
    String.raw`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
] as const;

/** LLAMA_VOCAB_PRE_TYPE_DEFAULT: what llama.cpp does for tokenizer.ggml.pre "default" (or when it is missing). Not GPT-2's split. */
const DEFAULT = [String.raw`[\p{P}\$\+<=>\^~\|]+`, GPT2, String.raw`\p{N}+`, '[0-9][0-9][0-9]'] as const;

/** Supported ids, each with llama.cpp's aliases that map to the same pre type. */
const SPECS: ReadonlyArray<readonly [readonly string[], () => PreTokenizerSpec]> = [
  [['default'], () => ({ preTokenizer: regexSequence(DEFAULT), ignoreMerges: false, addBosDefault: false })],
  [
    ['gpt-2'],
    () => ({
      preTokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      ignoreMerges: false,
      addBosDefault: false,
    }),
  ],
  [['llama-bpe', 'llama3', 'llama-v3'], () => ({ preTokenizer: regexSequence([LLAMA3]), ignoreMerges: true, addBosDefault: true })],
  [['glm4', 'chatglm-bpe'], () => ({ preTokenizer: regexSequence([LLAMA3]), ignoreMerges: false, addBosDefault: false })],
  [['deepseek-v3'], () => ({ preTokenizer: regexSequence(DEEPSEEK3), ignoreMerges: false, addBosDefault: false })],
];

/** The ids tokenizerFromGguf accepts as tokenizer.ggml.pre. */
export function supportedPreTokenizers(): string[] {
  return SPECS.flatMap(([ids]) => ids);
}

/** The spec for a tokenizer.ggml.pre id, or undefined when it is not supported. */
export function preTokenizerFor(pre: string): PreTokenizerSpec | undefined {
  const found = SPECS.find(([ids]) => ids.includes(pre));
  return found ? found[1]() : undefined;
}
