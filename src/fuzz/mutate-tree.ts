import { parse, stringify } from 'yaml';
import type { Rng } from './rng';

/** Values a field is swapped to: wrong types, sizes past any bound, prototype keys, paths to special files, control bytes. */
export const HOSTILE: readonly unknown[] = [
  0,
  -1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  1e308,
  -1e308,
  NaN,
  Infinity,
  -Infinity,
  0.5,
  1e-320,
  '',
  'x'.repeat(100_000),
  '__proto__',
  'constructor',
  '/dev/zero',
  '.',
  '../../../../../etc/passwd',
  'a\u0000b',
  '\u001b[31mred\u001b[0m',
  null,
  true,
  false,
  [],
  {},
  [[[[[]]]]],
  { __proto__: null },
  [0, -1, 2 ** 53],
];
/** Keys added beside the real ones: unknown, prototype, empty. */
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'unknown_key', 'x'.repeat(300)];

type Json = unknown;
type Slot = { parent: Record<string, Json> | Json[]; key: string | number };

function slots(v: Json, out: Slot[] = [], depth = 0): Slot[] {
  if (depth > 40 || out.length > 5000 || v === null || typeof v !== 'object') return out;
  for (const [k, x] of Object.entries(v)) {
    out.push({ parent: v as Record<string, Json>, key: Array.isArray(v) ? Number(k) : k });
    slots(x, out, depth + 1);
  }
  return out;
}

/** Own-property assignment: `o['__proto__'] = x` would set the prototype instead of adding the key a JSON file can hold. */
const put = (o: Record<string, Json> | Json[], k: string | number, x: Json) =>
  Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });

function nest(x: Json, depth: number, array: boolean): Json {
  let v = x;
  for (let i = 0; i < depth; i++) v = array ? [v] : { a: v };
  return v;
}

/** One structure-aware mutation of a parsed document, in place. */
function mutateValue(r: Rng, root: Json): Json {
  const all = slots(root);
  if (all.length === 0) return r.pick(HOSTILE);
  const s = r.pick(all);
  const cur = (s.parent as Record<string, Json>)[s.key as string];
  switch (r.int(8)) {
    case 0:
    case 1:
      put(s.parent, s.key, r.pick(HOSTILE));
      break;
    case 2:
      if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
      else delete s.parent[s.key as string];
      break;
    case 3:
      if (!Array.isArray(s.parent)) put(s.parent, r.pick(KEYS), r.chance(0.5) ? cur : r.pick(HOSTILE));
      else s.parent.push(...Array.from({ length: r.pick([2, 100, 10_000]) }, () => cur));
      break;
    case 4:
      put(s.parent, s.key, nest(cur, r.pick([2, 50, 300]), r.chance(0.5)));
      break;
    case 5:
      put(
        s.parent,
        s.key,
        typeof cur === 'number' ? String(cur) : typeof cur === 'string' && cur !== '' ? Number(cur) || [cur] : { v: cur },
      );
      break;
    case 6:
      put(s.parent, s.key, (r.pick(all).parent as Record<string, Json>)[r.pick(all).key as string]);
      break;
    default:
      if (typeof cur === 'number') put(s.parent, s.key, r.pick([cur + 1, cur - 1, -cur, cur * 1e6, cur * 2 ** 31]));
      else put(s.parent, s.key, r.pick(HOSTILE));
  }
  return root;
}

const BOMB =
  'lol0: &a0 [lol]\n' + Array.from({ length: 9 }, (_, i) => `lol${i + 1}: &a${i + 1} [${`*a${i}, `.repeat(9)}*a${i}]`).join('\n');

/** Text-level YAML edits a parse/stringify round trip cannot express: aliases, duplicate keys, deep flow nesting, bytes. */
function mutateYamlText(r: Rng, text: string): string {
  const lines = text.split('\n');
  const i = r.int(lines.length);
  const line = lines[i] ?? '';
  switch (r.int(10)) {
    case 0:
      return `${text}\n${BOMB}\n`;
    case 1:
      return text.replace(/^(\w+):/m, '$1: *nowhere\nlater: &nowhere 1\n$1:');
    case 2:
      lines.splice(i, 0, line);
      return lines.join('\n');
    case 3:
      lines.splice(i, 1);
      return lines.join('\n');
    case 4:
      return `${text}\ndeep: ${'['.repeat(r.pick([100, 5000]))}${']'.repeat(r.pick([0, 100, 5000]))}\n`;
    case 5:
      lines[i] = line.replace(
        /: (.*)$/,
        `: ${r.pick(['&x $1', '*x', '!!binary AAAA', '!!js/function x', '<<: *x', '"\\u0000"', '0x7fffffffffffffff'])}`,
      );
      return lines.join('\n');
    case 6:
      lines[i] = '\t' + line;
      return lines.join('\n');
    case 7:
      return r.pick(['\ufeff', '---\n', '%YAML 9.9\n---\n', '']) + text + r.pick(['\n---\nsecond: doc\n', '\n...\n', '\u0000', '']);
    case 8:
      return text.replace(/(\d+)/, r.pick(['1e309', '-0', '9'.repeat(400), '.nan', '.inf', '0b11', '1_000']));
    default:
      return text.slice(0, r.int(text.length + 1));
  }
}

export type TextFormat = 'yaml' | 'json';

/** Inputs stay under 1 MB: a blow-up counts only where a small file asks for the memory. */
export const MAX_INPUT = 1_000_000;

/** 1–3 seeded mutations of a YAML or JSON document: mostly structure-aware, some at the text level. */
export function mutateText(r: Rng, text: string, format: TextFormat): string {
  let cur = text;
  const n = 1 + r.int(3);
  for (let k = 0; k < n; k++) {
    if (r.chance(0.65)) {
      let v: Json;
      try {
        v = format === 'json' ? JSON.parse(cur) : parse(cur, { maxAliasCount: 100 });
      } catch {
        continue;
      }
      v = mutateValue(r, v);
      const next = serialize(r, v, format);
      if (next !== undefined && next.length <= MAX_INPUT) cur = next;
    } else {
      const next = format === 'json' ? mutateJsonText(r, cur) : mutateYamlText(r, cur);
      if (next.length <= MAX_INPUT) cur = next;
    }
  }
  return cur;
}

/**
 * The mutated tree as text, or undefined where it cannot be written: yaml's stringify recurses per level (a deep
 * nesting overflows it: JSON, which is YAML in flow style, is tried then), and a node moved into its own subtree makes a
 * cycle JSON cannot hold.
 */
function serialize(r: Rng, v: Json, format: TextFormat): string | undefined {
  const attempts =
    format === 'json' ? [() => jsonText(r, v)] : [() => stringify(v, { aliasDuplicateObjects: r.chance(0.3) }), () => jsonText(r, v)];
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch {
      // next attempt
    }
  }
  return undefined;
}

/** JSON.stringify writes NaN and ±Infinity as null; a file can hold 1e999 (parsed as Infinity) and -0. */
function jsonText(r: Rng, v: Json): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? `@@${x}@@` : x)).replace(
    /"@@(NaN|Infinity|-Infinity)@@"/g,
    (_m, x: string) => (x === 'NaN' ? r.pick(['NaN', '1e999', 'null']) : x === 'Infinity' ? '1e999' : '-1e999'),
  );
}

function mutateJsonText(r: Rng, text: string): string {
  const i = r.int(text.length + 1);
  switch (r.int(5)) {
    case 0:
      return text.replace(/"([^"]+)":/, '"$1": 1, "$1":');
    case 1:
      return text.slice(0, i) + r.pick(['{', '}', '[', ']', ',', '"', '\\u0000', '\\ud800']) + text.slice(i);
    case 2:
      return '['.repeat(r.pick([100, 10_000])) + text + ']'.repeat(r.pick([0, 10_000]));
    case 3:
      return text.replace(/(\d+)/, r.pick(['1e999', '-0', '9'.repeat(400), '4294967296', '9007199254740993']));
    default:
      return text.slice(0, i);
  }
}
