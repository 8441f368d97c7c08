import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { RUN_FORMAT, RUN_VERSION } from './report';
import { runSchema, runsSchema, selftestSchema } from './reports';

/** One schema violation: where in the document (JSON Pointer) and what. */
export interface SchemaError {
  at: string;
  message: string;
}

export interface Validation {
  ok: boolean;
  /** The document's format and version as read, e.g. `mla-diff/run v4`. */
  kind: string;
  errors: SchemaError[];
}

export type ReportKind = 'run' | 'runs' | 'selftest';

/** Compiles the shipped schemas once per validator; `validate` picks one by the document's `format`. */
export function reportValidator(): { validate: (doc: unknown) => Validation; compiled: Record<ReportKind, ValidateFunction> } {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  ajv.addSchema(runSchema());
  const compiled: Record<ReportKind, ValidateFunction> = {
    run: ajv.getSchema(runSchema().$id as string)!,
    runs: ajv.compile(runsSchema()),
    selftest: ajv.compile(selftestSchema()),
  };
  const validate = (doc: unknown): Validation => {
    // the document is a third party's: a `format` of "constructor" must not find Object.prototype's
    const head = (doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? doc : {}) as { format?: unknown; version?: unknown };
    const format = Object.hasOwn(head, 'format') ? head.format : undefined;
    const version = Object.hasOwn(head, 'version') ? head.version : undefined;
    const kind = `${short(format)} v${short(version)}`;
    const which = typeof format === 'string' && Object.hasOwn(KINDS, format) ? KINDS[format] : undefined;
    if (!which) {
      const message = `unknown format ${short(format, true)}; expected ${Object.keys(KINDS).join(', ')}`;
      return { ok: false, kind, errors: [{ at: '/format', message }] };
    }
    const v = compiled[which];
    return v(doc) ? { ok: true, kind, errors: [] } : { ok: false, kind, errors: (v.errors ?? []).map(toError) };
  };
  return { validate, compiled };
}

/** A value of the document for a message, cut to 80 characters: strings as they are (`quote`: as JSON), objects by their kind. */
const short = (x: unknown, quote = false): string => {
  let text: string;
  if (x === undefined) text = '(none)';
  else if (typeof x === 'string') text = quote ? JSON.stringify(x) : x;
  else if (typeof x === 'object' && x !== null) text = Array.isArray(x) ? 'an array' : 'an object';
  else text = JSON.stringify(x) ?? typeof x;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

const KINDS: Record<string, ReportKind> = { [RUN_FORMAT]: 'run', 'mla-diff/runs': 'runs', 'mla-diff/selftest': 'selftest' };

function toError(e: ErrorObject): SchemaError {
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})`
      : e.keyword === 'enum'
        ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.length} allowed values)`
        : '';
  return { at: e.instancePath || '/', message: `${e.message ?? e.keyword}${extra}` };
}

export { RUN_VERSION };
