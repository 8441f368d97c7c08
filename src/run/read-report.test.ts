import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MlaDiffError } from '../errors';
import { readRunReports } from './read-report';

const FIXTURE = resolve(__dirname, '../../fixtures/tiny-smoke.report.json');

describe('readRunReports', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'mla-read-report-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => { const p = join(dir, name); writeFileSync(p, text); return p; };
  const code = (f: () => unknown) => { try { f(); } catch (e) { return (e as MlaDiffError).code; } return null; };

  it('reads one run and a list of runs', () => {
    const [r] = readRunReports(FIXTURE);
    expect(r!.format).toBe('mla-diff/run');
    const runs = readRunReports(file('runs.json', JSON.stringify({ format: 'mla-diff/runs', version: 1, runs: [r, r] })));
    expect(runs).toHaveLength(2);
  });

  it('names what is wrong with a file that is not a run report', () => {
    expect(code(() => readRunReports(join(dir, 'missing.json')))).toBe('file-not-found');
    expect(code(() => readRunReports(file('bad.json', '{')))).toBe('report-invalid');
    expect(code(() => readRunReports(file('other.json', '{"format": "mla-diff/selftest"}')))).toBe('report-invalid');
    expect(code(() => readRunReports(file('old.json', '{"format": "mla-diff/run", "version": 1, "cases": []}')))).toBe('report-invalid');
    expect(code(() => readRunReports(file('runs.json', '{"format": "mla-diff/runs", "runs": [{}]}')))).toBe('report-invalid');
  });
});
