import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { hfTextTokenizer } from './hf';
import type { TextTokenizer } from './types';

type Json = Record<string, unknown>;

function isObject(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function readJsonObject(path: string, required: boolean): Json | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      if (!required) return undefined;
      throw new MlaDiffError('file-not-found', `no tokenizer file at ${path}`, { file: path });
    }
    throw new MlaDiffError('file-unreadable', `cannot read ${path}: ${(e as Error).message}`, { file: path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new MlaDiffError('tokenizer-invalid', `${path} is not valid JSON: ${(e as Error).message}`, { file: path });
  }
  if (!isObject(value)) {
    throw new MlaDiffError('tokenizer-invalid', `${path} does not hold a JSON object`, { file: path });
  }
  return value;
}

/**
 * transformers' LlamaTokenizerFast (DeepSeek-V3's tokenizer_class) rebuilds the post-processor from
 * add_bos_token (default true) / add_eos_token (default false) when it loads; do the same.
 */
function llamaFastPostProcessor(config: Json): object | undefined {
  if (config.tokenizer_class !== 'LlamaTokenizerFast') return undefined;
  const name = (t: unknown): string | undefined =>
    typeof t === 'string' ? t : isObject(t) && typeof t.content === 'string' ? t.content : undefined;
  const bos = config.add_bos_token !== false ? name(config.bos_token) : undefined;
  const eos = config.add_eos_token === true ? name(config.eos_token) : undefined;
  const special = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  const seq = (id: 'A' | 'B') => ({ Sequence: { id, type_id: 0 } });
  const around = (inner: object[]) => [...(bos ? [special(bos)] : []), ...inner, ...(eos ? [special(eos)] : [])];
  return {
    type: 'TemplateProcessing',
    single: around([seq('A')]),
    pair: [...around([seq('A')]), ...around([seq('B')])],
    special_tokens: {},
  };
}

/** From a tokenizer.json path (tokenizer_config.json beside it is read when present). */
export function tokenizerFromJson(path: string): TextTokenizer {
  const json = readJsonObject(path, true) as Json;
  const configPath = join(dirname(path), 'tokenizer_config.json');
  const config = readJsonObject(configPath, false) ?? {};
  if (!isObject(json.model)) {
    throw new MlaDiffError(
      'tokenizer-invalid',
      `${path} has no "model" object`,
      { file: path, field: 'model' },
      'expected an HF tokenizers tokenizer.json (the file next to the checkpoint, not vocab.json or tokenizer_config.json)',
    );
  }
  if (json.added_tokens !== undefined && !Array.isArray(json.added_tokens)) {
    throw new MlaDiffError('tokenizer-invalid', `${path}: "added_tokens" is not a list`, { file: path, field: 'added_tokens' });
  }
  const complete: Json = {
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: null,
    ...json,
    added_tokens: json.added_tokens ?? [],
  };
  const llama = llamaFastPostProcessor(config);
  if (llama) complete.post_processor = llama;
  return hfTextTokenizer(complete, config, `tokenizer.json (${path})`, path);
}
