import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { statRegularFile } from '../../formats/regular-file';
import { checkTokenizerConfig, type TokenizerConfig } from './config';
import { hfTextTokenizer } from './hf';
import { TOKENIZER_LIMITS as L } from './limits';
import { SchemaFailure } from './schema-check';
import type { TextTokenizer } from './types';

type Json = Record<string, unknown>;

function isObject(x: unknown): x is Json {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The file's text: a regular file (not a FIFO or device) of at most TOKENIZER_LIMITS.fileBytes, read to that bound only. */
function readBounded(path: string): string {
  const st = statRegularFile(path, 'a tokenizer file');
  if (st.size > L.fileBytes) {
    throw new MlaDiffError('limit-exceeded', `is ${st.size} bytes; a tokenizer file is read up to ${L.fileBytes}`, { file: path });
  }
  const fd = openSync(path, 'r');
  try {
    // a file that grows after the stat is read to the bound, and refused if it goes past it
    const buf = Buffer.alloc(Math.min(L.fileBytes + 1, st.size + 1));
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, n);
    if (n > L.fileBytes) throw new MlaDiffError('limit-exceeded', `grew past ${L.fileBytes} bytes while read`, { file: path });
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function readJsonObject(path: string, required: boolean): Json | undefined {
  let text: string;
  try {
    text = readBounded(path);
  } catch (e) {
    if (e instanceof MlaDiffError && e.code === 'file-not-found') {
      if (!required) return undefined;
      throw new MlaDiffError('file-not-found', `no tokenizer file at ${path}`, { file: path });
    }
    if (e instanceof MlaDiffError) throw e;
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

function configOf(path: string): TokenizerConfig {
  const value = readJsonObject(path, false) ?? {};
  try {
    return checkTokenizerConfig(value);
  } catch (e) {
    if (!(e instanceof SchemaFailure)) throw e;
    throw new MlaDiffError(
      e.limit ? 'limit-exceeded' : 'tokenizer-invalid',
      e.message,
      { file: path, field: e.field },
      'tokenizer_config.json as transformers writes it: bos_token a string or {"content": …}, add_bos_token true or false',
    );
  }
}

/**
 * transformers' LlamaTokenizerFast (DeepSeek-V3's tokenizer_class) rebuilds the post-processor from
 * add_bos_token (default true) / add_eos_token (default false) when it loads; do the same.
 */
function llamaFastPostProcessor(config: TokenizerConfig): object | undefined {
  if (config.tokenizer_class !== 'LlamaTokenizerFast') return undefined;
  const bos = config.add_bos_token !== false ? config.bos_token : undefined;
  const eos = config.add_eos_token === true ? config.eos_token : undefined;
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
  const config = configOf(configPath);
  if (!isObject(json.model)) {
    throw new MlaDiffError(
      'tokenizer-invalid',
      `${path} has no "model" object`,
      { file: path, field: 'model' },
      'expected an HF tokenizers tokenizer.json (the file next to the checkpoint, not vocab.json or tokenizer_config.json)',
    );
  }
  const llama = llamaFastPostProcessor(config);
  const complete: Json = llama ? { ...json, post_processor: llama } : json;
  const hf = { ...(config.bos_token !== undefined ? { bos_token: config.bos_token } : {}), library: config.library };
  try {
    return hfTextTokenizer(complete, hf, `tokenizer.json (${path})`, path);
  } catch (e) {
    // a BOS or EOS the config names for LlamaTokenizerFast's template, missing from the vocabulary, is the config's fault
    if (!(e instanceof MlaDiffError) || !llama || !e.where.field?.startsWith('post_processor.')) throw e;
    const bosFirst = e.where.field.startsWith('post_processor.single[0]') && config.add_bos_token !== false;
    throw new MlaDiffError(e.code, e.message, { file: configPath, field: bosFirst ? 'bos_token' : 'eos_token' }, e.hint);
  }
}
