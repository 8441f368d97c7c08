import { readFileSync } from 'node:fs';
import type { ErrorCode } from '../../errors';
import { MlaDiffError } from '../../errors';
import { statRegularFile } from '../../formats/regular-file';
import { jsonDepth, MAX_JSON_DEPTH } from '../../formats/safetensors/json-depth';

export { jsonDepth, MAX_JSON_DEPTH };

/**
 * Bounded reading of JSON that a third party wrote (a backend's response.json, an engine dump, a saved
 * report): the file is a regular file (a directory, FIFO or device is file-unreadable naming it), at
 * most `maxBytes` (limit-exceeded before anything is read), and its arrays and objects nest at most
 * MAX_JSON_DEPTH deep (`code`): V8's JSON.parse survives any depth, but what walks the value afterwards
 * (schema checks, JSON.stringify of a report) recurses and would overflow the stack.
 */
export interface JsonInput {
  /** What the file should be, for the refusal of a special file. */
  what: string;
  maxBytes: number;
  /** The code of a file that is not JSON or nests too deep. */
  code: ErrorCode;
  hint?: string;
}

/** The text of a third party's file, refused (with its path) when it is not a regular file or is larger than `maxBytes`. */
export function readBoundedText(file: string, what: string, maxBytes: number, hint?: string): string {
  const st = statRegularFile(file, what, hint);
  if (st.size > maxBytes)
    throw new MlaDiffError('limit-exceeded', `is ${st.size} bytes; ${what} is read up to ${maxBytes} bytes`, { file }, hint);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new MlaDiffError('file-unreadable', `cannot read: ${(e as Error).message}`, { file }, hint);
  }
}

/** JSON text parsed, or `code` naming the file (and line): not JSON, or nested deeper than MAX_JSON_DEPTH. */
export function parseJsonText(text: string, file: string, code: ErrorCode, line?: number, hint?: string): unknown {
  const where = line === undefined ? { file } : { file, line };
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new MlaDiffError(code, `arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`, where, hint);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MlaDiffError(code, `not JSON: ${(e as Error).message}`, where, hint);
  }
}

/** A third party's JSON file read within bounds and parsed. */
export function readJsonInput(file: string, o: JsonInput): unknown {
  return parseJsonText(readBoundedText(file, o.what, o.maxBytes, o.hint), file, o.code, undefined, o.hint);
}
