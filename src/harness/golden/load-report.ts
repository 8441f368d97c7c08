import { MlaDiffError } from '../../errors';
import { readTextFile } from '../../formats/text-file';
import { parseJsonText } from '../external/json-input';
import type { RunReport } from '../../trace';
import { RUN_FORMAT, RUN_VERSION, RUN_VERSION_PREVIOUS } from '../../trace';
import { withOutcome } from '../compare/outcome';
import type { Validation } from '../../trace/validate';
import { reportValidator } from '../../trace/validate';

type Validate = (doc: unknown) => Validation;

const SAVE_HINT = 'save one with `mla-diff run SCENARIO --format json --out FILE`';

/** A saved run as `mla-diff run --format json --out` writes it: one report, or `mla-diff/runs` for several scenarios. */
export interface SavedRuns {
  file: string;
  runs: RunReport[];
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** Version 5 lacks only the outcome (judge, outcome, cases[].outcome): computed here under declared outcomes; then validated. */
function upgraded(x: Record<string, unknown>): Record<string, unknown> {
  const cases = x['cases'];
  const judgeable = isObject(x['scenario']) && Array.isArray(cases) && cases.every((c) => isObject(c) && isObject(c['comparison']));
  if (x['version'] !== RUN_VERSION_PREVIOUS) return x;
  // one that cannot be judged goes on to the schema, which names what is wrong
  if (!judgeable) return { ...x, version: RUN_VERSION };
  try {
    return withOutcome({ ...x, version: RUN_VERSION } as unknown as RunReport, 'expect') as unknown as Record<string, unknown>;
  } catch {
    // judged before it is validated: a report malformed deeper than the checks above goes to the schema as it is
    return { ...x, version: RUN_VERSION };
  }
}

/**
 * Checks one run report: its format and version (their own codes, so an old report says so), then the
 * whole document against the shipped JSON Schema (schema/run-v6.schema.json), which names the first
 * fields that are missing or wrong.
 */
function checkReport(x: unknown, file: string, field: string, validate: Validate): RunReport {
  if (!isObject(x) || x['format'] !== RUN_FORMAT) {
    throw new MlaDiffError(
      'report-invalid',
      `not an mla-diff run report (format ${isObject(x) ? JSON.stringify(x['format']) : 'missing'})`,
      { file, field },
      'save one with `mla-diff run SCENARIO --format json --out FILE`',
    );
  }
  const doc = upgraded(x);
  if (doc['version'] !== RUN_VERSION) {
    throw new MlaDiffError(
      'report-version',
      `run report version ${JSON.stringify(x['version'])}; this mla-diff reads versions ${RUN_VERSION_PREVIOUS} and ${RUN_VERSION}`,
      { file, field: field ? `${field}.version` : 'version' },
      're-run the scenario with this version of mla-diff to save a current report',
    );
  }
  const v = validate(doc);
  if (!v.ok) {
    const shown = v.errors
      .slice(0, 3)
      .map((e) => `${e.at}: ${e.message}`)
      .join('; ');
    throw new MlaDiffError(
      'report-invalid',
      `does not match the run report schema: ${shown}${v.errors.length > 3 ? ` (+${v.errors.length - 3} more)` : ''}`,
      { file, field: field || undefined },
      'schema/run-v6.schema.json describes the format; save a report with `mla-diff run … --format json --out FILE`',
    );
  }
  return doc as unknown as RunReport;
}

/** Reads a saved run report; every failure is an MlaDiffError (file-not-found, file-unreadable, report-invalid, report-version). */
export function loadRunReport(file: string): SavedRuns {
  // readTextFile refuses a special file and bounds the size; parseJsonText bounds the nesting that the schema check would recurse through
  const json = parseJsonText(readTextFile(file, 'a run report'), file, 'report-invalid', undefined, SAVE_HINT);
  const { validate } = reportValidator();
  if (isObject(json) && json['format'] === 'mla-diff/runs') {
    if (!Array.isArray(json['runs']) || !json['runs'].length)
      throw new MlaDiffError('report-invalid', 'mla-diff/runs without runs', { file, field: 'runs' });
    return { file, runs: (json['runs'] as unknown[]).map((r, i) => checkReport(r, file, `runs[${i}]`, validate)) };
  }
  return { file, runs: [checkReport(json, file, '', validate)] };
}
