import type { z } from 'zod';
import type { JsonSchema } from './json';
import { toJsonSchema } from './json';
import { RUN_FORMAT, RUN_SCHEMA_ID, RUN_VERSION, RUNS_SCHEMA_ID, SELFTEST_SCHEMA_ID } from './report';
import { runReport, runsReport, selftestReport } from './report';

/** The JSON Schemas the package ships (schema/*.json), generated from the zod schemas of src/trace. */
export type Schema = JsonSchema;
export { RUN_SCHEMA_ID, RUNS_SCHEMA_ID, SELFTEST_SCHEMA_ID };

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** `schema` as a shipped document: dialect, id, title and description first, then the schema and its `$defs`. */
function document(schema: z.ZodType, head: { $id: string; title: string; description: string }): Schema {
  const { $schema: _, ...body } = toJsonSchema(schema);
  return { $schema: DIALECT, ...head, ...body };
}

/** The run report, `mla-diff/run` (src/trace/report.ts RunReport; docs/trace-format.md). */
export function runSchema(): Schema {
  return document(runReport, {
    $id: RUN_SCHEMA_ID,
    title: `${RUN_FORMAT} version ${RUN_VERSION}`,
    description:
      'One scenario run by mla-diff: the trace of every path, their comparison and diagnosis. Documented in docs/trace-format.md. ' +
      'Numbers that were NaN or ±Infinity are written as null.',
  });
}

/** Several scenarios in one document: `mla-diff run A.yaml B.yaml --format json`. */
export function runsSchema(): Schema {
  return document(runsReport, {
    $id: RUNS_SCHEMA_ID,
    title: 'mla-diff/runs version 1',
    description: `Several run reports (${RUN_SCHEMA_ID}) in one document.`,
  });
}

/** `mla-diff selftest --format json` (src/trace/report.ts SelftestReport). */
export function selftestSchema(): Schema {
  return document(selftestReport, {
    $id: SELFTEST_SCHEMA_ID,
    title: 'mla-diff/selftest version 1',
    description:
      'Every catalogue fault planted and scored: detection, localization, attribution, diagnosis, origin; clean runs for false positives.',
  });
}

/** Every schema the package ships, by file name under schema/. */
export function schemaFiles(): Record<string, Schema> {
  return {
    [`run-v${RUN_VERSION}.schema.json`]: runSchema(),
    'runs-v1.schema.json': runsSchema(),
    'selftest-v1.schema.json': selftestSchema(),
  };
}
