/** A zod issue of a scenario (or sweep) file as one MlaDiffError at its file, line and field, with "did you mean" hints. */
import { closest } from 'fastest-levenshtein';
import type { z } from 'zod';
import { fieldPath, MlaDiffError } from '../../errors';
import type { ErrorCode } from '../../errors';
import { allowedKeys } from './schema-keys';
import type { YamlSource } from './yaml-source';

/** One zod issue as an MlaDiffError at its line; `root` is the schema the issue's path walks (default the scenario's). */
export function issueError(src: YamlSource, issue: z.core.$ZodIssue, root?: unknown): MlaDiffError {
  if (issue.code === 'invalid_union' && issue.errors.length) {
    // Of the union's branches, report the one that got deepest into the value (e.g. the bad item of a list).
    const deepest = issue.errors.flat().reduce((a, b) => (b.path.length > a.path.length ? b : a));
    if (deepest.path.length) return issueError(src, { ...deepest, path: [...issue.path, ...deepest.path] } as z.core.$ZodIssue, root);
    const words = issue.errors
      .flat()
      .flatMap((e) => (e.code === 'invalid_value' ? e.values.filter((v): v is string => typeof v === 'string') : []));
    if (words.length) return issueError(src, { ...issue, code: 'invalid_value', values: words } as unknown as z.core.$ZodIssue, root);
  }
  const path = issue.path as PropertyKey[];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const allowed = allowedKeys(path, root);
    const guess = allowed.length ? closest(key, allowed) : undefined;
    const at = src.locate([...path, key], true);
    return new MlaDiffError(
      'unknown-key',
      `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
      { file: src.file, line: at?.line, column: at?.column, field: fieldPath([...path, key]) },
      allowed.length ? `allowed here: ${allowed.join(', ')}` : undefined,
    );
  }
  const at = src.locate(path);
  const value = valueAt(src.toJS(), path);
  if (issue.code === 'invalid_value' && value === undefined) {
    return new MlaDiffError('invalid-type', `missing required field (expected one of ${issue.values.map(String).join(', ')})`, {
      file: src.file,
      line: at?.line,
      column: at?.column,
      field: fieldPath(path),
    });
  }
  if (issue.code === 'invalid_value' && issue.values.every((v) => typeof v === 'string') && typeof value === 'object') {
    // A mapping or list where a word is expected: its kind, never "[object Object]".
    return new MlaDiffError('invalid-type', `expected one of ${issue.values.map(String).join(', ')}, got ${kindOf(value)}`, {
      file: src.file,
      line: at?.line,
      column: at?.column,
      field: fieldPath(path),
    });
  }
  if (issue.code === 'invalid_value' && issue.values.every((v) => typeof v === 'string')) {
    const got = String(value as string | number | boolean);
    const options = issue.values as string[];
    return new MlaDiffError(
      path[0] === 'model' && path[1] === 'preset' ? 'unknown-preset' : 'invalid-value',
      `"${got}" is not one of ${options.join(', ')} (did you mean "${closest(got, options)}"?)`,
      { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) },
    );
  }
  if (issue.code === 'too_big') {
    // A bound of field-limits.ts (or of the sweep schema): a size the run will not build, named with its bound.
    const unit = issue.origin === 'array' ? ' items' : issue.origin === 'string' ? ' characters' : '';
    const got = Array.isArray(value) || typeof value === 'string' ? `${value.length}${unit}` : String(value);
    return new MlaDiffError(
      'limit-exceeded',
      `${got} is over the limit of ${String(issue.maximum)}${unit}`,
      { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) || undefined },
      `at most ${String(issue.maximum)}${unit} here`,
    );
  }
  const code: ErrorCode = issue.code === 'invalid_type' ? 'invalid-type' : 'invalid-value';
  const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
  const message = missing ? `missing required field (expected ${issue.expected})` : issue.message.replace(/^Invalid input: /, '');
  return new MlaDiffError(code, message, { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) || undefined });
}

const kindOf = (v: object | null): string => (Array.isArray(v) ? 'a list' : v === null ? 'null' : 'a mapping');

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), root);
}
