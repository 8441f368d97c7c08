import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readTextFile } from '../../formats/text-file';
import { TOKENIZER_LIMITS } from '../tokenizer/limits';
import type { InspectIssue, TokenizerFacts } from './types';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Token ids of tokenizer.json: model.vocab (a map for BPE/WordPiece, a list for Unigram) and added_tokens. */
function tokenIds(j: Json): Set<number> {
  const ids = new Set<number>();
  const vocab = isObject(j.model) ? j.model.vocab : undefined;
  if (isObject(vocab)) for (const v of Object.values(vocab)) if (typeof v === 'number') ids.add(v);
  if (Array.isArray(vocab)) vocab.forEach((_, i) => ids.add(i));
  if (Array.isArray(j.added_tokens)) for (const t of j.added_tokens) if (isObject(t) && typeof t.id === 'number') ids.add(t.id);
  return ids;
}

/**
 * The tokenizer.json beside a safetensors checkpoint: its model type and sizes. A file that is
 * not a tokenizer is a warning, not a failure: the weights are still worth inspecting.
 */
export function tokenizerJsonFacts(dir: string, issues: InspectIssue[]): TokenizerFacts {
  const file = join(dir, 'tokenizer.json');
  if (!existsSync(file)) return { present: false, source: null };
  let j: unknown;
  try {
    j = JSON.parse(readTextFile(file, 'a tokenizer.json', undefined, TOKENIZER_LIMITS.fileBytes));
  } catch (e) {
    j = undefined;
    issues.push({ severity: 'warning', code: 'tokenizer-invalid', file, message: `not valid JSON: ${(e as Error).message}` });
  }
  if (!isObject(j)) return { present: true, source: 'tokenizer.json', file };
  const model = isObject(j.model) && typeof j.model.type === 'string' ? j.model.type : undefined;
  const merges = isObject(j.model) && Array.isArray(j.model.merges) ? j.model.merges.length : undefined;
  return {
    present: true,
    source: 'tokenizer.json',
    file,
    ...(model !== undefined ? { model } : {}),
    tokens: tokenIds(j).size,
    ...(merges !== undefined ? { merges } : {}),
    ...(Array.isArray(j.added_tokens) ? { added: j.added_tokens.length } : {}),
  };
}
