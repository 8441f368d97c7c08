import type { z } from 'zod';
import { fieldPath } from '../../errors';

/** Where a tokenizer file is wrong: the JSON path (`post_processor.single[0]`) and what is wrong there. */
export class SchemaFailure extends Error {
  constructor(
    readonly path: readonly PropertyKey[],
    message: string,
    readonly limit = false,
  ) {
    super(message);
  }
  get field(): string {
    return fieldPath(this.path);
  }
}

/** The kind of a JSON value, as a message names it. */
export function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return `the number ${v}`;
  return typeof v === 'boolean' || typeof v === 'bigint' ? `${typeof v} ${v}` : typeof v;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** One zod issue as a message that names what was expected and what was found (never zod's "received undefined"). */
function describe(issue: z.core.$ZodIssue, found: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return found === undefined ? `missing (expected ${issue.expected})` : `expected ${issue.expected}, found ${kindOf(found)}`;
    case 'too_big':
      return `${kindOf(found)} is above the bound ${String(issue.maximum)}`;
    case 'too_small':
      return `${kindOf(found)} is below the least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `${kindOf(found)} is not one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
    case 'custom':
      return `${issue.message}, found ${kindOf(found)}`;
    default:
      return `${kindOf(found)} is not accepted (${issue.code.replaceAll('_', ' ')})`;
  }
}

/** Parses `value` (found at `path` of `root`) with `schema`; the first issue is a SchemaFailure at its full path. */
export function check<T>(schema: z.ZodType<T>, value: unknown, path: readonly PropertyKey[], root: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const at = [...path, ...issue.path];
  const limit = issue.code === 'too_big';
  throw new SchemaFailure(at, describe(issue, valueAt(root, at)), limit);
}

/**
 * Whether a regex nests an unbounded quantifier inside a quantified group (`(a+)+`, `(\s*x)*`): V8 backtracks over such a
 * pattern exponentially and cannot be interrupted. Real tokenizer regexes (GPT-2, Llama 3, Qwen, DeepSeek) never do.
 */
export function nestedQuantifier(source: string): boolean {
  const frames: boolean[] = [false];
  let inClass = 0;
  const quantifierAt = (i: number): number => {
    const c = source[i];
    if (c === '*' || c === '+') return 1;
    const m = c === '{' ? /^\{(\d+)(?:(,)(\d*))?\}/.exec(source.slice(i, i + 24)) : null;
    if (!m) return 0;
    const upper = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    return upper > 1 ? m[0].length : 0;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass > 0) {
      if (c === '[') inClass++;
      else if (c === ']') inClass--;
      continue;
    }
    if (c === '[') inClass = 1;
    else if (c === '(') frames.push(false);
    else if (c === ')' && frames.length > 1) {
      const inner = frames.pop()!;
      const q = quantifierAt(i + 1);
      if (q > 0 && inner) return true;
      if (q > 0 || inner) frames[frames.length - 1] = true;
    } else if (quantifierAt(i) > 0) frames[frames.length - 1] = true;
  }
  return false;
}
