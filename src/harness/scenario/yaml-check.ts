/**
 * What a scenario (or sweep) YAML may hold beyond the grammar, checked on the node tree before it becomes JS: nesting
 * depth, aliases only after their anchor, plain scalar keys without duplicates, the core schema's tags only, and no
 * key that names a JavaScript object internal. One pass, no recursion (a deep file cannot exhaust the stack).
 */
import { isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, LineCounter, Node } from 'yaml';
import { fieldPath, MlaDiffError } from '../../errors';
import type { ErrorCode } from '../../errors';

/** Deeper than any scenario needs (the deepest field, engines[0].plant[0], sits 4 levels down) by far. */
export const YAML_MAX_DEPTH = 64;
/** Aliases a file may hold, and what yaml's toJS may expand them to (its maxAliasCount): a billion laughs stops here. */
export const YAML_MAX_ALIASES = 100;
/** Characters of a scenario or sweep file: shipped ones are a few kB. */
export const YAML_MAX_CHARS = 2 ** 20;
/**
 * Separators (newlines, commas, brackets) a file may hold, counted before parsing: each node of the tree needs one, and
 * the yaml library takes 2.6 s for 16,384 list items that are mappings on a 2-core machine at load 11 (a fuzz
 * campaign's), so this caps its time near that. Shipped scenarios have under 100 lines; long prompts are given as
 * length: N (ids drawn from the seed) or text: (one scalar, however long), not written out as ids.
 */
export const YAML_MAX_SEPARATORS = 2 ** 14;

/** Newlines, commas, `[` and `{` in `text`: an upper bound on the nodes its flow and block collections can hold, + 1. */
export function separators(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (isSeparator(text.charCodeAt(i))) n++;
  return n;
}

/** A newline, comma, `[` or `{`: what `separators` counts. */
const isSeparator = (c: number): boolean => c === 10 || c === 44 || c === 91 || c === 123;

/** The 1-based line of `text` holding its `n`-th separator, or its `n`-th character when `chars`: where a size limit is crossed. */
export function lineOfCount(text: string, n: number, chars = false): number {
  let line = 1;
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (chars || isSeparator(c)) seen++;
    if (seen >= n) return line;
    if (c === 10) line++;
  }
  return line;
}

const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));
/** Keys that would set or shadow an object's prototype where a mapping becomes a JS object. */
const INTERNAL_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

interface Item {
  node: unknown;
  depth: number;
  path: PropertyKey[];
  /** Set once the anchored node's subtree has been walked: an alias inside its own anchor would make a cycle. */
  anchorDone?: string;
}

/** The JS key a scalar key becomes (yaml's toJS: String(value), null as ''). */
export const keyText = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value as string | number);

/**
 * Throws yaml-syntax (or limit-exceeded, invalid-value) at the first node the loader must not take; returns where the
 * first alias is (toJS's alias limit is reported there).
 */
export function checkYamlTree(doc: Document, lines: LineCounter, file: string): { line: number; column: number } | undefined {
  let first: { line: number; column: number } | undefined;
  const anchors = new Set<string>();
  let aliases = 0;
  const stop = (code: ErrorCode, node: unknown, path: PropertyKey[], message: string, hint?: string): never => {
    const start = (node as Node | undefined)?.range?.[0];
    const at = start === undefined ? { line: 1, col: 1 } : lines.linePos(start);
    throw new MlaDiffError(code, message, { file, line: at.line, column: at.col, field: fieldPath(path) || undefined }, hint);
  };
  const stack: Item[] = [{ node: doc.contents, depth: 0, path: [] }];
  while (stack.length) {
    const { node, depth, path, anchorDone } = stack.pop()!;
    if (anchorDone !== undefined) anchors.add(anchorDone);
    if (node === null || node === undefined) continue;
    if (depth > YAML_MAX_DEPTH) {
      stop(
        'limit-exceeded',
        node,
        path,
        `nests deeper than ${YAML_MAX_DEPTH} levels`,
        `a scenario nests a few levels; at most ${YAML_MAX_DEPTH}`,
      );
    }
    if (isAlias(node)) {
      if (++aliases > YAML_MAX_ALIASES)
        stop('yaml-syntax', node, path, `more than ${YAML_MAX_ALIASES} aliases`, 'write the values out, or anchor fewer of them');
      const start = node.range?.[0];
      if (!first && start !== undefined) first = { line: lines.linePos(start).line, column: lines.linePos(start).col };
      if (!anchors.has(node.source))
        stop('yaml-syntax', node, path, `alias *${node.source} before (or without) its anchor &${node.source}`);
      continue;
    }
    const n = node as Node;
    if (n.tag !== undefined && !CORE_TAGS.has(n.tag)) {
      stop(
        'yaml-syntax',
        node,
        path,
        `the tag ${n.tag} is not accepted here`,
        'scenarios hold plain strings, numbers, booleans, lists and mappings',
      );
    }
    const children: Item[] = [];
    if (n.anchor) stack.push({ node: null, depth, path, anchorDone: n.anchor });
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        if (key !== null && !isScalar(key)) {
          stop('yaml-syntax', key, path, 'a mapping key must be a plain scalar (a name), not a list, mapping or alias');
        }
        const k = keyText(isScalar(key) ? key.value : null);
        if (seen.has(k)) stop('yaml-syntax', key, [...path, k], `duplicate key "${k}"`, 'each key may appear once in a mapping');
        if (INTERNAL_KEYS.has(k))
          stop('invalid-value', key, [...path, k], `"${k}" is not accepted as a key`, 'it names a JavaScript object internal');
        seen.add(k);
        children.push({ node: key, depth: depth + 1, path: [...path, k] }, { node: pair.value, depth: depth + 1, path: [...path, k] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => children.push({ node: item, depth: depth + 1, path: [...path, i] }));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return first;
}
