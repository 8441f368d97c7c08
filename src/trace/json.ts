import { z } from 'zod';

/**
 * The building blocks of the report schemas, and their conversion to JSON Schema (draft 2020-12).
 * A zod schema is the one definition of a report type: the TS type is its `z.infer`, the shipped
 * JSON Schema its `toJsonSchema`. Where the JSON differs from the TS type (NaN written as null, a
 * config passed through as an open map) the schema carries the JSON it stands for in `AS_JSON`.
 */
export type JsonSchema = { [key: string]: unknown };

/** The named sub-schemas: each becomes `$defs/<id>` and is referenced as `#/$defs/<id>`. */
export const DEFS = z.registry<{ id: string }, z.ZodType>();
/** Schemas whose JSON is given rather than derived (the TS type is narrower or wider than the JSON). */
export const AS_JSON = z.registry<{ json: JsonSchema }, z.ZodType>();

/** `schema` as the named sub-schema `id` of the report schemas. */
export const def = <T extends z.ZodType>(id: string, schema: T): T => {
  DEFS.add(schema, { id });
  return schema;
};
/** `schema`, written in JSON Schema as `json`. */
export const asJson = <T extends z.ZodType>(schema: T, json: JsonSchema): T => {
  AS_JSON.add(schema, { json });
  return schema;
};

/** A number; in JSON null where it was NaN or ±Infinity (JSON.stringify writes those as null). The TS type stays `number`. */
export const num = asJson(z.number(), { type: ['number', 'null'] });
/** A number that may be null in TS too (not measured); JSON as `num`. */
export const numOrNull = asJson(z.number().nullable(), { type: ['number', 'null'] });
export const finite = z.number();
export const int = z.int();
export const count = z.int().min(0);
export const str = z.string();
export const bool = z.boolean();
export const ints = z.array(int);
export const strs = z.array(str);
export const trueOnly = z.literal(true);
/** Two counts (a and b of a pair): `[number, number]`. */
export const countPair = z.tuple([count, count]);

/** A closed list as a zod enum (zod wants a non-empty tuple; the lists are non-empty constants). */
export const oneOf = <const T extends string>(values: readonly T[]) => z.enum(values as unknown as [T, ...T[]]);

/** A map over the keys of `keys` (any subset of them), each value `value`: `Partial<Record<K, V>>`. */
export const keyed = <const K extends string, V extends z.ZodType>(keys: readonly K[], value: V) => z.partialRecord(oneOf(keys), value);

/** Step and request: which piece of which engine step (a record adds its stage and chunk: case-trace.ts `where`). */
export const scope = { step: count, request: str };

const MAX = Number.MAX_SAFE_INTEGER;

/**
 * zod's output in the shipped schemas' idiom: no implied integer bounds, no `type` beside an enum or
 * const, `null` last in a type list, a nullable array or primitive as a type list, pairs as bounded arrays.
 */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== 'object') return node;
  const s = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, tidy(v)])) as JsonSchema;
  delete s['readOnly'];
  if (JSON.stringify(s['propertyNames']) === '{"type":"string"}') delete s['propertyNames'];
  if (s['type'] === 'integer') {
    if (s['minimum'] === -MAX) delete s['minimum'];
    if (s['maximum'] === MAX) delete s['maximum'];
  }
  if ('enum' in s || 'const' in s) delete s['type'];
  const types = s['type'];
  if (Array.isArray(types) && types.includes('null')) s['type'] = [...types.filter((t) => t !== 'null'), 'null'];
  if (s['type'] === 'object' && s['properties'] && !s['required']) s['required'] = [];
  const prefix = s['prefixItems'] as unknown[] | undefined;
  if (prefix && s['items'] === false && prefix.every((p) => JSON.stringify(p) === JSON.stringify(prefix[0]))) {
    delete s['prefixItems'];
    s['items'] = prefix[0];
  }
  const any = s['anyOf'] as JsonSchema[] | undefined;
  if (any?.length === 2 && JSON.stringify(any[1]) === '{"type":"null"}') {
    const [first] = any as [JsonSchema];
    if (typeof first['type'] === 'string' && first['type'] !== 'object' && !('enum' in first || 'const' in first)) {
      delete s['anyOf'];
      return { ...first, type: [first['type'], 'null'], ...s };
    }
  }
  return s;
}

/** `schema` in JSON Schema draft 2020-12, its named sub-schemas under `$defs`. */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    metadata: DEFS,
    unrepresentable: 'any',
    override: (ctx) => {
      const given = AS_JSON.get(ctx.zodSchema as unknown as z.ZodType)?.json;
      if (!given) return;
      for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[k];
      Object.assign(ctx.jsonSchema, given);
    },
  });
  return tidy(json) as JsonSchema;
}
