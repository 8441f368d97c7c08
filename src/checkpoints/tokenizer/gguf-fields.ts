import { MlaDiffError } from '../../errors';
import type { GgufEntry, GgufValue } from '../../formats/gguf/types';
import { TOKENIZER_LIMITS as L } from './limits';

/** Typed reads of `tokenizer.ggml.*` metadata; a wrong type is 'tokenizer-invalid' pointing at the key. */
export interface GgufFields {
  string(key: string): string | undefined;
  strings(key: string): string[] | undefined;
  integers(key: string): number[] | undefined;
  integer(key: string): number | undefined;
  boolean(key: string): boolean | undefined;
  /** Numbers (tokenizer.ggml.scores; -inf allowed, as some converters write it). */
  numbers(key: string): number[] | undefined;
  /** Throws 'tokenizer-invalid' for `key`. */
  fail(key: string, message: string, hint?: string): never;
  /** Throws 'limit-exceeded' for `key`: a count or length beyond TOKENIZER_LIMITS. */
  exceeds(key: string, message: string): never;
}

function asInteger(v: GgufValue): number | undefined {
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= 0n ? Number(v) : undefined;
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

export function ggufFields(metadata: ReadonlyMap<string, GgufEntry>, where: string): GgufFields {
  const fail = (key: string, message: string, hint?: string): never => {
    throw new MlaDiffError('tokenizer-invalid', `${key}: ${message}`, { file: where, field: key }, hint);
  };
  const array = (key: string): GgufValue[] | undefined => {
    const e = metadata.get(key);
    if (e === undefined) return undefined;
    if (!Array.isArray(e.value)) return fail(key, `expected an array, found ${e.type}`);
    if (e.value.length > L.entries) return exceeds(key, `${e.value.length} entries; at most ${L.entries}`);
    return e.value;
  };
  const exceeds = (key: string, message: string): never => {
    throw new MlaDiffError('limit-exceeded', `${key}: ${message}`, { file: where, field: key });
  };
  return {
    fail,
    exceeds,
    string(key) {
      const e = metadata.get(key);
      if (e === undefined) return undefined;
      return typeof e.value === 'string' ? e.value : fail(key, `expected a string, found ${e.type}`);
    },
    strings(key) {
      const a = array(key);
      if (a === undefined) return undefined;
      return a.map((v, i) => (typeof v === 'string' ? v : fail(`${key}[${i}]`, 'expected a string')));
    },
    integers(key) {
      const a = array(key);
      if (a === undefined) return undefined;
      return a.map((v, i) => asInteger(v) ?? fail(`${key}[${i}]`, 'expected an integer'));
    },
    numbers(key) {
      const a = array(key);
      if (a === undefined) return undefined;
      return a.map((v, i) => (typeof v === 'number' ? v : fail(`${key}[${i}]`, 'expected a number')));
    },
    integer(key) {
      const e = metadata.get(key);
      if (e === undefined) return undefined;
      return asInteger(e.value) ?? fail(key, `expected an integer, found ${e.type}`);
    },
    boolean(key) {
      const e = metadata.get(key);
      if (e === undefined) return undefined;
      return typeof e.value === 'boolean' ? e.value : fail(key, `expected a boolean, found ${e.type}`);
    },
  };
}
