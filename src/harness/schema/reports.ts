import { RUN_FORMAT, RUN_VERSION } from '../run/trace';
import { compareDefs } from './defs-compare';
import { scenarioDefs } from './defs-scenario';
import { traceDefs } from './defs-trace';
import { CULPRITS, FAULT_NAMES, STAGE_NAMES } from './enums';
import type { Schema } from './json-schema';
import { arr, bool, count, finite, map, nullable, obj, oneOf, ref, str, strs } from './json-schema';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
export const RUN_SCHEMA_ID = `urn:mla-diff:schema:run:${RUN_VERSION}`;
export const RUNS_SCHEMA_ID = 'urn:mla-diff:schema:runs:1';
export const SELFTEST_SCHEMA_ID = 'urn:mla-diff:schema:selftest:1';

/** The run report, `mla-diff/run` (src/harness/run/trace.ts RunReport; docs/trace-format.md). */
export function runSchema(): Schema {
  return {
    $schema: DIALECT,
    $id: RUN_SCHEMA_ID,
    title: `${RUN_FORMAT} version ${RUN_VERSION}`,
    description: 'One scenario run by mla-diff: the trace of every path, their comparison and diagnosis. Documented in docs/trace-format.md. Numbers that were NaN or ±Infinity are written as null.',
    ...obj({
      format: { const: RUN_FORMAT }, version: { const: RUN_VERSION }, tool: obj({ name: { const: 'mla-diff' }, version: str }),
      created: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T' }, scenario: ref('scenarioEcho'), device: ref('deviceInfo'),
      verdict: oneOf(['agree', 'diverge']), weights: ref('weightsReport'),
      seconds: obj({ weights: finite, reference: { type: ['number', 'null'] }, total: finite }), cases: arr(ref('caseResult')),
    }, ['weights']),
    $defs: { ...scenarioDefs(), ...traceDefs(), ...compareDefs() },
  };
}

/** Several scenarios in one document: `mla-diff run A.yaml B.yaml --format json`. */
export function runsSchema(): Schema {
  return {
    $schema: DIALECT,
    $id: RUNS_SCHEMA_ID,
    title: 'mla-diff/runs version 1',
    description: `Several run reports (${RUN_SCHEMA_ID}) in one document.`,
    ...obj({ format: { const: 'mla-diff/runs' }, version: { const: 1 }, runs: { type: 'array', items: { $ref: RUN_SCHEMA_ID }, minItems: 1 } }),
  };
}

/** `mla-diff selftest --format json` (src/harness/selftest/run.ts SelftestReport). */
export function selftestSchema(): Schema {
  const rates = obj({ runs: count, detected: count, localized: count, attributed: count, diagnosed: count, origin: count });
  const row = obj({
    name: str, fault: nullable(oneOf(FAULT_NAMES)), path: nullable(oneOf(['mha', 'mqa'])), detected: bool, localized: bool, attributed: bool,
    diagnosed: bool, origin: bool, cause: { type: ['string', 'null'] },
    first: nullable(obj({ step: count, request: str, stage: oneOf(STAGE_NAMES), culprit: oneOf(CULPRITS) })), seconds: finite,
  });
  const score = {
    tolerance: str, rows: arr(row), perFault: map(rates, FAULT_NAMES), total: rates,
    clean: obj({ runs: count, falsePositives: count }), goalMet: bool, seconds: finite,
  };
  const run = runSchema();
  return {
    $schema: DIALECT,
    $id: SELFTEST_SCHEMA_ID,
    title: 'mla-diff/selftest version 1',
    description: 'Every catalogue fault planted and scored: detection, localization, attribution, diagnosis, origin; clean runs for false positives.',
    ...obj({
      format: { const: 'mla-diff/selftest' }, version: { const: 1 }, device: ref('deviceInfo'),
      options: obj({ seeds: arr({ type: 'integer' }), shapes: strs, floor: finite }, ['floor']), ...score, floor: obj(score),
    }, ['floor']),
    $defs: { deviceInfo: (run.$defs as Record<string, Schema>).deviceInfo },
  };
}

/** Every schema the package ships, by file name under schema/. */
export function schemaFiles(): Record<string, Schema> {
  return { [`run-v${RUN_VERSION}.schema.json`]: runSchema(), 'runs-v1.schema.json': runsSchema(), 'selftest-v1.schema.json': selftestSchema() };
}
