import { z } from 'zod';
import { TOKENIZER_LIMITS as L } from './limits';
import { check } from './schema-check';

/**
 * tokenizer_config.json, the fields this tool and the tokenizer library read, each with the type it must have (a
 * SchemaFailure at the field otherwise). Everything else in the file (chat templates, model_max_length) is left alone.
 */
export interface TokenizerConfig {
  bos_token?: string;
  eos_token?: string;
  add_bos_token?: boolean;
  add_eos_token?: boolean;
  tokenizer_class?: string;
  /** What the library is given: only fields it reads, with their checked types. */
  library: Record<string, unknown>;
}

/** A special token: a string, or transformers' AddedToken object with its `content`. */
const special = z.union([z.string().max(L.tokenChars), z.looseObject({ content: z.string().max(L.tokenChars) })], {
  error: 'expected a token string or an object with "content"',
});
const schema = z.looseObject({
  bos_token: special.nullish(),
  eos_token: special.nullish(),
  add_bos_token: z.boolean().nullish(),
  add_eos_token: z.boolean().nullish(),
  tokenizer_class: z.string().max(L.stringChars).nullish(),
  additional_special_tokens: z.array(special).max(L.entries).nullish(),
  remove_space: z.boolean().nullish(),
  do_lowercase_and_remove_accent: z.boolean().nullish(),
});

const content = (t: string | { content: string } | null | undefined): string | undefined =>
  typeof t === 'string' ? t : (t?.content ?? undefined);

export function checkTokenizerConfig(value: Record<string, unknown>): TokenizerConfig {
  const c = check(schema, value, [], value);
  const out: TokenizerConfig = { library: { clean_up_tokenization_spaces: false } };
  const bos = content(c.bos_token);
  const eos = content(c.eos_token);
  if (bos !== undefined) out.bos_token = bos;
  if (eos !== undefined) out.eos_token = out.library.eos_token = eos;
  if (typeof c.add_bos_token === 'boolean') out.add_bos_token = c.add_bos_token;
  if (typeof c.add_eos_token === 'boolean') out.add_eos_token = c.add_eos_token;
  if (typeof c.tokenizer_class === 'string') out.tokenizer_class = c.tokenizer_class;
  if (c.additional_special_tokens) out.library.additional_special_tokens = c.additional_special_tokens.map(content);
  if (c.remove_space) out.library.remove_space = true;
  if (c.do_lowercase_and_remove_accent) out.library.do_lowercase_and_remove_accent = true;
  return out;
}
