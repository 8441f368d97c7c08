import { RUN_VERSION } from '../run/trace';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRunReport } from './load-report';

const dir = mkdtempSync(join(tmpdir(), 'load-report-'));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const FIXTURE = join(__dirname, '../../../fixtures/tiny-smoke.report.json');

describe('loadRunReport', () => {
  it('reads a saved run and a multi-scenario mla-diff/runs document', () => {
    expect(loadRunReport(FIXTURE).runs).toHaveLength(1);
    const one = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown;
    expect(loadRunReport(file('runs.json', JSON.stringify({ format: 'mla-diff/runs', version: 1, runs: [one, one] }))).runs).toHaveLength(
      2,
    );
  });

  it.each([
    ['missing', join(dir, 'nope.json'), 'file-not-found'],
    ['a directory', dir, 'file-unreadable'],
    ['not JSON', file('bad.json', '{"format": '), 'report-invalid'],
    ['another format', file('other.json', '{"format": "mla-diff/compare", "version": 1}'), 'report-invalid'],
    ['an old version', file('old.json', '{"format": "mla-diff/run", "version": 3}'), 'report-version'],
    [
      'without cases',
      file('nocases.json', `{"format": "mla-diff/run", "version": ${RUN_VERSION}, "scenario": {"name": "x"}, "device": {}}`),
      'report-invalid',
    ],
    [
      'a case without trace',
      file('notrace.json', `{"format": "mla-diff/run", "version": ${RUN_VERSION}, "scenario": {"name": "x"}, "device": {}, "cases": [{}]}`),
      'report-invalid',
    ],
    ['runs without a list', file('noruns.json', '{"format": "mla-diff/runs", "version": 1}'), 'report-invalid'],
    ['runs with an empty list', file('emptyruns.json', '{"format": "mla-diff/runs", "version": 1, "runs": []}'), 'report-invalid'],
    // hostile documents (issue 23): every one a coded refusal, never a crash
    ['a number', file('number.json', '42'), 'report-invalid'],
    ['null', file('null.json', 'null'), 'report-invalid'],
    ['an array', file('array.json', '[{"format": "mla-diff/run"}]'), 'report-invalid'],
    ['format "constructor"', file('ctor.json', '{"format": "constructor", "version": 6}'), 'report-invalid'],
    ['format "__proto__"', file('proto-format.json', '{"format": "__proto__", "version": 6}'), 'report-invalid'],
    [
      'a __proto__ key',
      file('proto.json', `{"__proto__": {"format": "mla-diff/run"}, "format": "mla-diff/run", "version": ${RUN_VERSION}}`),
      'report-invalid',
    ],
    [
      'runs of prototype keys',
      file('proto-runs.json', '{"format": "mla-diff/runs", "version": 1, "runs": [{"constructor": 1}]}'),
      'report-invalid',
    ],
    [
      'nested 100 000 deep',
      file('deep.json', `{"format": "mla-diff/run", "version": 6, "x": ${'['.repeat(1e5)}${']'.repeat(1e5)}}`),
      'report-invalid',
    ],
    [
      'a version-5 report with malformed cases',
      file('v5.json', '{"format": "mla-diff/run", "version": 5, "scenario": {}, "cases": [{"comparison": {"stages": 7, "pairs": "x"}}]}'),
      'report-invalid',
    ],
    [
      'a huge array of runs',
      file('many.json', `{"format": "mla-diff/runs", "version": 1, "runs": [${'1,'.repeat(2e5)}1]}`),
      'report-invalid',
    ],
  ])('%s → %s', (_what, path, code) => {
    expect(() => loadRunReport(path)).toThrow(expect.objectContaining({ code }));
  });
});
