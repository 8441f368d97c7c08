import { z } from 'zod';
import { TOKENIZER_LIMITS as L } from './limits';
import { check, kindOf, nestedQuantifier, SchemaFailure } from './schema-check';

/**
 * tokenizer.json's normalizer, pre_tokenizer, post_processor and decoder, each checked against what @huggingface/tokenizers
 * reads of it (every field it dereferences, with the type it must have) before the library sees it: the library trusts
 * its input and fails inside (`Cannot use 'in' operator`, `undefined` in a message) or loops (FixedLength of 0).
 */
export type ComponentKind = 'normalizer' | 'pre_tokenizer' | 'post_processor' | 'decoder';

const str = z.string().max(L.stringChars);
const flag = z.boolean().optional();
const count = z.number().int().min(0).max(L.tokenChars);
const pattern = z
  .looseObject({ String: str.optional(), Regex: z.string().max(L.patternChars).optional() })
  .refine((p) => (p.String === undefined) !== (p.Regex === undefined), { message: 'expected {"String": …} or {"Regex": …}' });
const tokenAndId = z.tuple([
  z.string().max(L.tokenChars),
  z
    .number()
    .int()
    .min(0)
    .max(L.vocabIds - 1),
]);
const templateItem = z.union(
  [
    z.strictObject({ SpecialToken: z.looseObject({ id: z.string().max(L.tokenChars), type_id: z.number().int().min(0).optional() }) }),
    z.strictObject({ Sequence: z.looseObject({ id: z.enum(['A', 'B']), type_id: z.number().int().min(0).optional() }) }),
  ],
  { error: 'expected {"SpecialToken": {"id": …}} or {"Sequence": {"id": "A"}}' },
);
const template = z.array(templateItem).max(L.componentItems);
const any = z.looseObject({});

const TYPES: Record<ComponentKind, Record<string, z.ZodType>> = {
  normalizer: {
    BertNormalizer: z.looseObject({ clean_text: flag, handle_chinese_chars: flag, lowercase: flag, strip_accents: z.boolean().nullish() }),
    Precompiled: z.looseObject({ precompiled_charsmap: z.string().nullish() }),
    Sequence: any,
    Replace: z.looseObject({ pattern, content: str.optional() }),
    NFC: any,
    NFD: any,
    NFKC: any,
    NFKD: any,
    Strip: z.looseObject({ strip_left: flag, strip_right: flag }),
    StripAccents: any,
    Lowercase: any,
    Prepend: z.looseObject({ prepend: str }),
  },
  pre_tokenizer: {
    BertPreTokenizer: any,
    Sequence: any,
    Whitespace: any,
    WhitespaceSplit: any,
    Metaspace: z.looseObject({
      replacement: str.optional(),
      str_rep: str.optional(),
      prepend_scheme: z.enum(['always', 'first', 'never']).optional(),
      add_prefix_space: flag,
      split: flag,
    }),
    ByteLevel: z.looseObject({ add_prefix_space: flag, trim_offsets: flag, use_regex: flag }),
    Split: z.looseObject({
      pattern,
      behavior: z.enum(['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous']).optional(),
      invert: flag,
    }),
    Punctuation: z.looseObject({ behavior: str.optional() }),
    Digits: z.looseObject({ individual_digits: flag }),
    Replace: z.looseObject({ pattern, content: str.optional() }),
    FixedLength: z.looseObject({ length: z.number().int().min(1).max(L.tokenChars) }),
  },
  post_processor: {
    TemplateProcessing: z.looseObject({ single: template, pair: template.optional() }),
    ByteLevel: any,
    BertProcessing: z.looseObject({ sep: tokenAndId, cls: tokenAndId }),
    RobertaProcessing: z.looseObject({ sep: tokenAndId, cls: tokenAndId }),
    Sequence: any,
  },
  decoder: {
    ByteLevel: any,
    WordPiece: z.looseObject({ prefix: str.optional(), cleanup: flag }),
    Metaspace: z.looseObject({ replacement: str.optional() }),
    BPEDecoder: z.looseObject({ suffix: str.optional() }),
    CTC: z.looseObject({ pad_token: str.optional(), word_delimiter_token: str.optional(), cleanup: flag }),
    Sequence: any,
    Replace: z.looseObject({ pattern, content: str.optional() }),
    Fuse: any,
    Strip: z.looseObject({ content: str.optional(), start: count.optional(), stop: count.optional() }),
    ByteFallback: any,
  },
};

const SEQUENCE_KEY: Record<ComponentKind, string> = {
  normalizer: 'normalizers',
  pre_tokenizer: 'pretokenizers',
  post_processor: 'processors',
  decoder: 'decoders',
};

/** The component types the library builds, for a hint. */
export function supportedTypes(kind: ComponentKind): string[] {
  return Object.keys(TYPES[kind]);
}

type Json = Record<string, unknown>;

/** Checks one component (null allowed at the top) and the ones it nests; `known` says whether a token is in the vocabulary. */
export function checkComponent(kind: ComponentKind, root: Json, known: (token: string) => boolean): void {
  const visit = (value: unknown, path: PropertyKey[], depth: number): void => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new SchemaFailure(path, `expected a ${kind} object${depth === 0 ? ' or null' : ''}, found ${kindOf(value)}`);
    }
    const c = value as Json;
    const type = c.type;
    if (typeof type !== 'string' || !Object.hasOwn(TYPES[kind], type)) {
      const what = type === undefined ? 'missing' : `${kindOf(type)} is not a ${kind} type the tokenizer library builds`;
      throw new SchemaFailure([...path, 'type'], `${what} (one of ${supportedTypes(kind).join(', ')})`);
    }
    check(TYPES[kind][type]!, c, path, root);
    for (const key of ['pattern'] as const) {
      const regex = (c[key] as Json | undefined)?.Regex;
      if (typeof regex === 'string' && nestedQuantifier(regex)) {
        throw new SchemaFailure([...path, key, 'Regex'], 'nests a repeated group inside a repetition (exponential backtracking)');
      }
    }
    if (kind === 'post_processor') checkSpecials(c, path, known);
    if (type !== 'Sequence') return;
    const key = SEQUENCE_KEY[kind];
    const items = c[key] ?? [];
    if (!Array.isArray(items)) throw new SchemaFailure([...path, key], `expected a list, found ${kindOf(items)}`);
    if (items.length > L.componentItems) {
      throw new SchemaFailure([...path, key], `${items.length} items; a Sequence holds at most ${L.componentItems}`, true);
    }
    if (depth + 1 >= L.componentDepth) {
      throw new SchemaFailure([...path, key], `Sequences nested ${depth + 2} deep; at most ${L.componentDepth}`, true);
    }
    items.forEach((item, i) => visit(item, [...path, key, i], depth + 1));
  };
  if (root[kind] !== null) visit(root[kind], [kind], 0);
}

/** The tokens a post-processor puts in by name must be in the vocabulary: the library would give them no id. */
function checkSpecials(c: Json, path: PropertyKey[], known: (token: string) => boolean): void {
  const unknown = (token: string, at: PropertyKey[]) => {
    if (!known(token)) throw new SchemaFailure(at, `${JSON.stringify(token)} is not in the vocabulary or added_tokens`);
  };
  for (const key of ['single', 'pair'] as const) {
    const items = (c[key] ?? []) as Array<{ SpecialToken?: { id: string }; Sequence?: { id: string } }>;
    items.forEach((item, i) => {
      if (item.SpecialToken) unknown(item.SpecialToken.id, [...path, key, i, 'SpecialToken', 'id']);
      if (key === 'single' && item.Sequence?.id === 'B') {
        throw new SchemaFailure([...path, key, i, 'Sequence', 'id'], 'a single-text template has no second text "B"');
      }
    });
  }
  for (const key of ['cls', 'sep'] as const) {
    const pair = c[key] as [string, number] | undefined;
    if (pair) unknown(pair[0], [...path, key, 0]);
  }
}
