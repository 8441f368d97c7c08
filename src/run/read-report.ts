import { readFileSync } from 'node:fs';
import { MlaDiffError } from '../errors';
import type { RunReport } from './trace';
import { RUN_FORMAT, RUN_VERSION } from './trace';

/** `mla-diff run --format json` writes one run, or several as {format: 'mla-diff/runs', runs}. */
const RUNS_FORMAT = 'mla-diff/runs';

function checked(x: unknown, file: string, field: string): RunReport {
  const r = x as Partial<RunReport> | null;
  if (!r || typeof r !== 'object' || r.format !== RUN_FORMAT) {
    throw new MlaDiffError('report-invalid', `not an mla-diff run report (format ${JSON.stringify(r?.format ?? null)})`, { file, field: field || undefined },
      'save one with: mla-diff run SCENARIO --format json --out FILE');
  }
  if (r.version !== RUN_VERSION) {
    throw new MlaDiffError('report-invalid', `run report version ${JSON.stringify(r.version)}; this tool reads version ${RUN_VERSION}`, { file, field: `${field}version` },
      'run the scenario again with this version of mla-diff');
  }
  if (!Array.isArray(r.cases)) throw new MlaDiffError('report-invalid', 'run report without cases', { file, field: `${field}cases` });
  return r as RunReport;
}

/** The run reports of a saved JSON file: one run or a list of runs, each of this RUN_VERSION. */
export function readRunReports(file: string): RunReport[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file-not-found' : 'file-unreadable';
    throw new MlaDiffError(code, code === 'file-not-found' ? 'no such file' : `cannot read: ${(e as Error).message}`, { file });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new MlaDiffError('report-invalid', `not JSON: ${(e as Error).message}`, { file });
  }
  const many = json as { format?: unknown; runs?: unknown } | null;
  if (many && typeof many === 'object' && many.format === RUNS_FORMAT) {
    if (!Array.isArray(many.runs)) throw new MlaDiffError('report-invalid', `${RUNS_FORMAT} without runs`, { file, field: 'runs' });
    return many.runs.map((r, i) => checked(r, file, `runs[${i}].`));
  }
  return [checked(json, file, '')];
}
