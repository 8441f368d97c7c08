import { fieldPath, MlaDiffError } from '../../errors';
import type { ErrorCode } from '../../errors';
import type { YamlSource } from './yaml-source';

/** Throws an MlaDiffError located at `path` of the scenario file. */
export function fail(src: YamlSource, code: ErrorCode, path: PropertyKey[], message: string, hint?: string): never {
  const at = src.locate(path);
  throw new MlaDiffError(code, message, { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) }, hint);
}
