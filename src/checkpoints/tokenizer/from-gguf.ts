import type { GgufEntry } from '../../formats/gguf/types';
import { ggufFields } from './gguf-fields';
import { TOKENIZER_LIMITS as L } from './limits';
import { hfTextTokenizer } from './hf';
import { preTokenizerFor, supportedPreTokenizers } from './pre-tokenizers';
import type { AddedTokenJson, TextTokenizer, TokenizerJson } from './types';

/** llama.cpp token types (`tokenizer.ggml.token_type`). */
const CONTROL = 3;
const USER_DEFINED = 4;
/** The highest llama.cpp token type (LLAMA_TOKEN_TYPE_BYTE). */
const MAX_TOKEN_TYPE = 6;

const SUPPORTED_MODELS = 'tokenizer.ggml.model "gpt2" (byte-level BPE: GLM, DeepSeek, Llama 3, GPT-2 style vocabularies)';

/** The ByteLevel decoder as GPT-2 / GLM / DeepSeek tokenizer.json files write it. */
export const BYTE_LEVEL_DECODER = Object.freeze({ type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true });

function templateProcessing(bos: string | undefined, eos: string | undefined): object {
  const special = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  const around = (id: 'A' | 'B') => [
    ...(bos !== undefined ? [special(bos)] : []),
    { Sequence: { id, type_id: 0 } },
    ...(eos !== undefined ? [special(eos)] : []),
  ];
  return { type: 'TemplateProcessing', single: around('A'), pair: [...around('A'), ...around('B')], special_tokens: {} };
}

/**
 * The tokenizer.json equivalent of a GGUF vocabulary (tokenizer.ggml.*), the way llama.cpp reads it: BPE over
 * `tokens` with `merges` ranks, the pre-tokenizer of `pre`, control (3) and user-defined (4) tokens as added tokens
 * (never split; control ones special), BOS/EOS added when add_bos_token/add_eos_token (or llama.cpp's default for
 * the pre id) says so. `where` is the file path for errors.
 */
export function ggufToTokenizerJson(metadata: ReadonlyMap<string, GgufEntry>, where: string): TokenizerJson {
  const f = ggufFields(metadata, where);
  const model = f.string('tokenizer.ggml.model') ?? f.fail('tokenizer.ggml.model', 'missing: the file has no vocabulary');
  if (model !== 'gpt2') {
    f.fail('tokenizer.ggml.model', `"${model}" vocabularies are not supported`, `supported: ${SUPPORTED_MODELS}`);
  }
  const pre = f.string('tokenizer.ggml.pre') ?? 'default';
  const spec =
    preTokenizerFor(pre) ??
    f.fail('tokenizer.ggml.pre', `pre-tokenizer "${pre}" is not supported`, `supported: ${supportedPreTokenizers().join(', ')}`);

  const tokens = f.strings('tokenizer.ggml.tokens') ?? f.fail('tokenizer.ggml.tokens', 'missing: the file has no token list');
  if (tokens.length === 0) f.fail('tokenizer.ggml.tokens', 'the token list is empty');
  const seen = new Map<string, number>();
  const texts = tokens.map((t, i) => {
    if (t.length > L.tokenChars) f.exceeds(`tokenizer.ggml.tokens[${i}]`, `a token of ${t.length} characters; at most ${L.tokenChars}`);
    const text = t === '' ? `[EMPTY_${i}]` : t; // as llama.cpp does
    const before = seen.get(text);
    if (before !== undefined) f.fail(`tokenizer.ggml.tokens[${i}]`, `duplicate token ${JSON.stringify(text)} (also id ${before})`);
    seen.set(text, i);
    return text;
  });
  // one type and one score a token: llama.cpp reads them by the token's id
  const types = f.integers('tokenizer.ggml.token_type');
  if (types && types.length !== tokens.length) {
    f.fail('tokenizer.ggml.token_type', `${types.length} types for ${tokens.length} tokens`);
  }
  const badType = types?.findIndex((t) => t < 0 || t > MAX_TOKEN_TYPE) ?? -1;
  if (badType >= 0)
    f.fail(`tokenizer.ggml.token_type[${badType}]`, `type ${types![badType]} is not one of llama.cpp's 0..${MAX_TOKEN_TYPE}`);
  const scores = f.numbers('tokenizer.ggml.scores');
  if (scores && scores.length !== tokens.length) f.fail('tokenizer.ggml.scores', `${scores.length} scores for ${tokens.length} tokens`);
  const mergeStrings = f.strings('tokenizer.ggml.merges') ?? f.fail('tokenizer.ggml.merges', 'missing: a BPE vocabulary needs its merges');

  const merges = mergeStrings.map((m, i): [string, string] => {
    const at = m.indexOf(' ', 1); // llama.cpp splits at the first space after the first character
    if (at < 0 || at === m.length - 1 || m.length > 2 * L.tokenChars + 1) {
      f.fail(`tokenizer.ggml.merges[${i}]`, `${JSON.stringify(m.slice(0, 60))} is not "left right"`);
    }
    return [m.slice(0, at), m.slice(at + 1)];
  });
  const added: AddedTokenJson[] = [];
  texts.forEach((content, id) => {
    const type = types?.[id];
    if (type === CONTROL || type === USER_DEFINED) {
      added.push({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: type === CONTROL });
    }
  });

  const special = (key: 'bos' | 'eos'): string | undefined => {
    const k = `tokenizer.ggml.${key}_token_id`;
    const id = f.integer(k);
    if (id === undefined) return undefined;
    return (id >= 0 ? texts[id] : undefined) ?? f.fail(k, `id ${id} is outside the vocabulary (${texts.length} tokens)`);
  };
  // ids set but outside the vocabulary are refused whether or not they are added: bos: true would ask for them
  const bosToken = special('bos');
  const eosToken = special('eos');
  const addBos = f.boolean('tokenizer.ggml.add_bos_token') ?? spec.addBosDefault;
  const addEos = f.boolean('tokenizer.ggml.add_eos_token') ?? false;
  const bos = addBos ? (bosToken ?? f.fail('tokenizer.ggml.bos_token_id', 'add_bos_token is true but the BOS id is not set')) : undefined;
  const eos = addEos ? (eosToken ?? f.fail('tokenizer.ggml.eos_token_id', 'add_eos_token is true but the EOS id is not set')) : undefined;

  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: spec.preTokenizer,
    post_processor: bos !== undefined || eos !== undefined ? templateProcessing(bos, eos) : null,
    decoder: { ...BYTE_LEVEL_DECODER },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: spec.ignoreMerges,
      vocab: Object.fromEntries(texts.map((t, i) => [t, i])),
      merges,
    },
  };
}

/**
 * From GGUF metadata (tokenizer.ggml.*); see ggufToTokenizerJson. The BOS is tokenizer.ggml.bos_token_id's token (added or
 * not: `bos: true` can ask for it). `where` is the file path for errors.
 */
export function tokenizerFromGguf(metadata: ReadonlyMap<string, GgufEntry>, where: string): TextTokenizer {
  const json = ggufToTokenizerJson(metadata, where);
  const bosId = ggufFields(metadata, where).integer('tokenizer.ggml.bos_token_id');
  const bos = bosId === undefined ? undefined : Object.keys(json.model.vocab).find((t) => json.model.vocab[t] === bosId);
  return hfTextTokenizer(json, { ...(bos === undefined ? {} : { bos_token: bos }), library: {} }, `GGUF vocabulary (${where})`, where);
}
