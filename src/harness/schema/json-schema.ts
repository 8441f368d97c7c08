/** A JSON Schema (draft 2020-12) node, as plain data. */
export type Schema = { [key: string]: unknown };

/** A JSON number; null where the value was NaN or ±Infinity (JSON.stringify writes those as null). */
export const num: Schema = { type: ['number', 'null'] };
export const finite: Schema = { type: 'number' };
export const count: Schema = { type: 'integer', minimum: 0 };
export const str: Schema = { type: 'string' };
export const bool: Schema = { type: 'boolean' };
export const ints: Schema = { type: 'array', items: { type: 'integer' } };
export const nums: Schema = { type: 'array', items: num };
export const strs: Schema = { type: 'array', items: str };
export const trueOnly: Schema = { const: true };

export const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
export const oneOf = (values: readonly (string | number)[]): Schema => ({ enum: [...values] });
export const arr = (items: Schema): Schema => ({ type: 'array', items });
export const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: 'null' }] });

/**
 * A closed object: every listed property is required except those in `optional`, and no other
 * property is allowed (a field the schema does not document is a schema bug, caught in tests).
 */
export function obj(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  const required = Object.keys(properties).filter((k) => !optional.includes(k));
  return { type: 'object', properties, required, additionalProperties: false };
}

/** An open map: any key (or only `keys` when given), each value `value`. */
export function map(value: Schema, keys?: readonly string[]): Schema {
  return { type: 'object', ...(keys ? { propertyNames: oneOf(keys) } : {}), additionalProperties: value };
}

/** Step, request, stage and (chunked stages) chunk: one record of the schedule. */
export const WHERE = { step: count, request: str, stage: ref('stage'), chunk: count };
export const WHERE_OPT = ['chunk'] as const;
