import { z } from 'zod';
import { checkComponent, type ComponentKind } from './components';
import { TOKENIZER_LIMITS as L } from './limits';
import { check, kindOf, SchemaFailure } from './schema-check';

/**
 * tokenizer.json checked before @huggingface/tokenizers builds from it: the model (type, vocab, merges), added_tokens and
 * the four components, with every id in [0, 4M) and every size bounded (TOKENIZER_LIMITS). A failure is a SchemaFailure at
 * the JSON path; the caller names the file.
 */
export type ModelType = 'BPE' | 'WordPiece' | 'Unigram';
const MODEL_TYPES: readonly ModelType[] = ['BPE', 'WordPiece', 'Unigram'];

export interface CheckedTokenizer {
  /** The tokenizer.json with its optional parts filled in (nulls, WordPiece's "##"), as the library is given it. */
  json: Record<string, unknown>;
  type: ModelType;
  /** Highest id (vocabulary or added token) + 1. */
  vocabSize: number;
  /** Characters of the longest piece. */
  longestPiece: number;
}

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

const id = z
  .number()
  .int()
  .min(0)
  .max(L.vocabIds - 1);
const token = z.string().max(L.tokenChars);
const addedToken = z.looseObject({
  id,
  content: token.min(1),
  single_word: z.boolean().optional(),
  lstrip: z.boolean().optional(),
  rstrip: z.boolean().optional(),
  normalized: z.boolean().optional(),
  special: z.boolean().optional(),
});
const MODEL_FIELDS: Record<ModelType, z.ZodType> = {
  BPE: z.looseObject({
    unk_token: token.nullish(),
    end_of_word_suffix: token.nullish(),
    continuing_subword_suffix: token.nullish(),
    byte_fallback: z.boolean().nullish(),
    ignore_merges: z.boolean().nullish(),
    fuse_unk: z.boolean().nullish(),
  }),
  WordPiece: z.looseObject({
    unk_token: token.nullish(),
    continuing_subword_prefix: token.nullish(),
    max_input_chars_per_word: z.number().int().min(0).max(L.wordPieceChars).nullish(),
  }),
  Unigram: z.looseObject({ unk_id: id.nullish(), byte_fallback: z.boolean().nullish() }),
};

function bounded(list: unknown, path: PropertyKey[]): unknown[] {
  if (!Array.isArray(list)) throw new SchemaFailure(path, `expected a list, found ${kindOf(list)}`);
  if (list.length > L.entries) throw new SchemaFailure(path, `${list.length} entries; at most ${L.entries}`, true);
  return list;
}

function modelType(model: Json): ModelType {
  const t = model.type;
  if (t === undefined) {
    // tokenizer.json of old releases names no type: the library infers it the same way
    if (Array.isArray(model.vocab)) return 'Unigram';
    if (model.merges !== undefined) return 'BPE';
    if (model.continuing_subword_prefix !== undefined) return 'WordPiece';
  }
  if (typeof t === 'string' && (MODEL_TYPES as readonly string[]).includes(t)) return t as ModelType;
  const what = t === undefined ? 'missing' : `${kindOf(t)} is not a model the tokenizer library builds`;
  throw new SchemaFailure(['model', 'type'], `${what} (one of ${MODEL_TYPES.join(', ')})`);
}

/** The vocabulary as [piece, id] pairs, each checked. */
function vocabEntries(model: Json, type: ModelType, root: Json): Array<[string, number]> {
  const path = ['model', 'vocab'];
  if (type === 'Unigram') {
    const list = bounded(model.vocab, path);
    if (list.length === 0) throw new SchemaFailure(path, 'the vocabulary is empty');
    const entry = z.tuple([token, z.number().refine(Number.isFinite, { message: 'expected a finite score' })]);
    return list.map((e, i) => [check(entry, e, [...path, i], root)[0], i]);
  }
  if (!isObject(model.vocab)) throw new SchemaFailure(path, `expected an object of piece: id, found ${kindOf(model.vocab)}`);
  const entries = Object.entries(model.vocab);
  if (entries.length > L.entries) throw new SchemaFailure(path, `${entries.length} entries; at most ${L.entries}`, true);
  for (const [piece, v] of entries) {
    if (piece.length > L.tokenChars) throw new SchemaFailure([...path, piece.slice(0, 40)], `a piece of ${piece.length} characters`, true);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new SchemaFailure([...path, piece], `expected an id (an integer from 0), found ${kindOf(v)}`);
    }
    if (v >= L.vocabIds) throw new SchemaFailure([...path, piece], `id ${v} is beyond the bound of ${L.vocabIds} ids`, true);
  }
  return entries as Array<[string, number]>;
}

/** BPE merges: all "left right" strings or all [left, right] pairs, both sides non-empty. */
function checkMerges(model: Json): void {
  const list = bounded(model.merges ?? [], ['model', 'merges']);
  const pairs = Array.isArray(list[0]);
  list.forEach((m, i) => {
    const ok = pairs
      ? Array.isArray(m) && m.length === 2 && m.every((s) => typeof s === 'string' && s.length > 0 && s.length <= L.tokenChars)
      : typeof m === 'string' && m.length <= 2 * L.tokenChars + 1 && /^[^ ]+ [^ ]+/.test(m);
    if (!ok) {
      const form = pairs ? '["left", "right"] (as the first merge)' : '"left right" (as the first merge)';
      throw new SchemaFailure(['model', 'merges', i], `expected ${form}, found ${kindOf(m)}`);
    }
  });
}

export function checkTokenizerJson(value: Json): CheckedTokenizer {
  const model = value.model;
  if (!isObject(model)) throw new SchemaFailure(['model'], `expected the model object, found ${kindOf(model)}`);
  const type = modelType(model);
  const entries = vocabEntries(model, type, value);
  check(MODEL_FIELDS[type], model, ['model'], value);
  if (type === 'BPE') checkMerges(model);
  const added = bounded(value.added_tokens ?? [], ['added_tokens']).map((t, i) => check(addedToken, t, ['added_tokens', i], value));
  const pieces = new Set(entries.map(([p]) => p));
  for (const t of added) pieces.add(t.content);
  const unk = model.unk_token;
  if (typeof unk === 'string' && type === 'BPE' && !pieces.has(unk)) {
    throw new SchemaFailure(['model', 'unk_token'], `${JSON.stringify(unk)} is not in the vocabulary`);
  }
  if (type === 'Unigram' && typeof model.unk_id === 'number' && model.unk_id >= entries.length) {
    throw new SchemaFailure(['model', 'unk_id'], `id ${model.unk_id} is outside the vocabulary (${entries.length} pieces)`);
  }
  const json: Json = { normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, ...value, added_tokens: added };
  json.model = { ...model, type, merges: type === 'BPE' ? (model.merges ?? []) : model.merges };
  if (type === 'WordPiece') (json.model as Json).continuing_subword_prefix = model.continuing_subword_prefix ?? '##';
  for (const kind of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder'] as ComponentKind[]) {
    checkComponent(kind, json, (t) => pieces.has(t));
  }
  let maxId = -1;
  let longestPiece = 0;
  for (const [p, i] of entries) {
    if (i > maxId) maxId = i;
    if (p.length > longestPiece) longestPiece = p.length;
  }
  for (const t of added) maxId = Math.max(maxId, t.id);
  return { json, type, vocabSize: maxId + 1, longestPiece };
}
