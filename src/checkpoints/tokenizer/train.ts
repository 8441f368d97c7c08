import { MlaDiffError } from '../../errors';
import type { GgufEntry } from '../../formats/gguf/types';
import { byteLevelAlphabet, byteLevelEncode, gpt2SplitRegex } from './byte-level';
import { BYTE_LEVEL_DECODER } from './from-gguf';
import type { AddedTokenJson, TokenizerJson } from './types';

export interface TrainedBpe {
  /** An HF tokenizer.json object (GPT-2 style: ByteLevel pre-tokenizer, BPE, ByteLevel decoder). */
  tokenizerJson: TokenizerJson;
  /** A tokenizer_config.json-like object. */
  tokenizerConfig: Record<string, unknown>;
  /** The same vocabulary as llama.cpp's converter writes it (tokenizer.ggml.*), in write order. */
  ggufEntries: Map<string, GgufEntry>;
}

interface Word {
  symbols: string[];
  count: number;
}

/** Pre-tokens of the corpus (GPT-2 split, special-token strings left out), byte-level encoded, with counts. */
function words(corpus: string, specials: readonly string[]): Word[] {
  let parts = [corpus];
  for (const s of specials) parts = parts.flatMap((p) => p.split(s));
  const counts = new Map<string, number>();
  for (const part of parts) {
    for (const piece of part.match(gpt2SplitRegex()) ?? []) {
      const w = byteLevelEncode(piece);
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  return [...counts].map(([w, count]) => ({ symbols: Array.from(w), count }));
}

/** The most frequent adjacent pair; ties go to the lexicographically smallest (left, then right). */
function bestPair(ws: readonly Word[]): { left: string; right: string; count: number } | undefined {
  const counts = new Map<string, { left: string; right: string; count: number }>();
  for (const w of ws) {
    for (let i = 0; i + 1 < w.symbols.length; i++) {
      const left = w.symbols[i] as string;
      const right = w.symbols[i + 1] as string;
      const key = `${left} ${right}`; // byte-level symbols never hold a space
      const c = counts.get(key);
      if (c) c.count += w.count;
      else counts.set(key, { left, right, count: w.count });
    }
  }
  let best: { left: string; right: string; count: number } | undefined;
  for (const c of counts.values()) {
    if (!best || c.count > best.count || (c.count === best.count && (c.left < best.left || (c.left === best.left && c.right < best.right))))
      best = c;
  }
  return best;
}

function applyMerge(w: Word, left: string, right: string): void {
  const out: string[] = [];
  for (let i = 0; i < w.symbols.length; i++) {
    if (w.symbols[i] === left && w.symbols[i + 1] === right) {
      out.push(left + right);
      i++;
    } else out.push(w.symbols[i] as string);
  }
  w.symbols = out;
}

/**
 * Trains a small byte-level BPE on `corpus` (for test fixtures): the 256 byte tokens in GPT-2's order, then the most
 * frequent adjacent pair merged repeatedly (ties: lexicographic) until `vocabSize` tokens or no pair occurs twice,
 * then `specials` appended as special (control) tokens. BOS = EOS = the first special (GPT-2's convention), not
 * added by default. The GGUF side says tokenizer.ggml.pre "gpt-2": llama.cpp's "default" is a different split.
 */
export function trainByteLevelBpe(corpus: string, vocabSize: number, specials: readonly string[] = []): TrainedBpe {
  if (!Number.isInteger(vocabSize) || vocabSize < 256) {
    throw new MlaDiffError('invalid-value', `vocabSize ${vocabSize}: a byte-level BPE needs at least the 256 byte tokens`, {
      field: 'vocabSize',
    });
  }
  if (new Set(specials).size !== specials.length || specials.some((s) => s === '')) {
    throw new MlaDiffError('invalid-value', 'special tokens must be distinct and non-empty', { field: 'specials' });
  }
  const vocab = [...byteLevelAlphabet()];
  const known = new Set(vocab);
  const merges: [string, string][] = [];
  const ws = words(corpus, specials);
  while (vocab.length < vocabSize) {
    const best = bestPair(ws);
    if (!best || best.count < 2) break;
    merges.push([best.left, best.right]);
    const token = best.left + best.right;
    if (!known.has(token)) {
      known.add(token);
      vocab.push(token);
    }
    for (const w of ws) applyMerge(w, best.left, best.right);
  }
  const firstSpecial = vocab.length;
  const added: AddedTokenJson[] = specials.map((content, i) => ({
    id: firstSpecial + i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const tokens = [...vocab, ...specials];
  const bos = specials[0];

  const tokenizerJson: TokenizerJson = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { ...BYTE_LEVEL_DECODER },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(tokens.map((t, i) => [t, i])),
      merges,
    },
  };
  const tokenizerConfig: Record<string, unknown> = {
    add_bos_token: false,
    add_eos_token: false,
    add_prefix_space: false,
    bos_token: bos ?? null,
    eos_token: bos ?? null,
    clean_up_tokenization_spaces: false,
    tokenizer_class: 'PreTrainedTokenizerFast',
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...rest }) => [String(id), rest])),
  };
  const ggufEntries = new Map<string, GgufEntry>([
    ['tokenizer.ggml.model', { type: 'STRING', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'STRING', value: 'gpt-2' }],
    ['tokenizer.ggml.tokens', { type: 'ARRAY', itemType: 'STRING', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'ARRAY', itemType: 'INT32', value: tokens.map((_, i) => (i < firstSpecial ? 1 : 3)) }],
    ['tokenizer.ggml.merges', { type: 'ARRAY', itemType: 'STRING', value: merges.map(([l, r]) => `${l} ${r}`) }],
  ]);
  if (bos !== undefined) {
    ggufEntries.set('tokenizer.ggml.bos_token_id', { type: 'UINT32', value: firstSpecial });
    ggufEntries.set('tokenizer.ggml.eos_token_id', { type: 'UINT32', value: firstSpecial });
  }
  ggufEntries.set('tokenizer.ggml.add_bos_token', { type: 'BOOL', value: false });
  ggufEntries.set('tokenizer.ggml.add_eos_token', { type: 'BOOL', value: false });
  return { tokenizerJson, tokenizerConfig, ggufEntries };
}
