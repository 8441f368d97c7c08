import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunReport } from '../run/trace';
import { readTolerancesFile } from '../scenario/tolerances-file';
import { ratchetOf, ratchetYaml, roundUp2 } from './ratchet';
import { rejudgeRun } from './rejudge';

const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;

describe('roundUp2', () => {
  it.each([
    [1.234e-7, 1.3e-7],
    [9.95e-7, 1e-6],
    [4e-7, 4e-7],
    [0.001, 0.001],
    [123, 130],
    [0, 0],
  ])('%p → %p', (x, y) => {
    expect(roundUp2(x)).toBeCloseTo(y, 20);
    expect(roundUp2(x)).toBeGreaterThanOrEqual(x);
  });
});

describe('the tolerance ratchet', () => {
  const clean = load('tiny-smoke.report.json');

  it('per stage: the worst pair error × 2, rounded up; re-judged with it the run still agrees', () => {
    const r = ratchetOf(clean);
    const worst = Math.max(
      ...clean.cases.flatMap((c) =>
        c.comparison.stages.filter((v) => v.stage === 'o_proj_out').flatMap((v) => v.pairs.map((p) => p.relErr ?? 0)),
      ),
    );
    expect(r.stages.o_proj_out!.rel).toBe(roundUp2(2 * worst));
    expect(r.stages.W_UK_T!.rel).toBe(0);
    expect(r.stages.o_proj_out!.rel).toBeLessThan(1e-5);
    expect(rejudgeRun(clean, { stages: Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, v!.rel])) }).verdict).toBe('agree');
  });

  it('round-trips through YAML: the file reads back as the same rules', () => {
    const r = ratchetOf(clean);
    const file = join(mkdtempSync(join(tmpdir(), 'ratchet-')), 'r.yaml');
    writeFileSync(file, ratchetYaml(r, 'now'));
    expect(readTolerancesFile(file)).toEqual(Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, v!.rel])));
  });

  it('a divergent run is refused (ratchet-impossible): its tolerances would bake the bug in', () => {
    expect(() => ratchetOf(load('fault-mqa-scale-576.tp0.report.json'))).toThrow(expect.objectContaining({ code: 'ratchet-impossible' }));
  });
});

describe('rejudge', () => {
  const clean = load('tiny-smoke.report.json');
  const fault = load('fault-mqa-scale-576.tp0.report.json');

  it('with the saved tolerances, gives the saved comparisons and diagnosis', () => {
    const again = rejudgeRun(fault, { default: fault.scenario.tolerances.default, stages: fault.scenario.tolerances.stages });
    expect(again.cases.map((c) => c.comparison)).toEqual(fault.cases.map((c) => c.comparison));
    expect(again.cases.map((c) => c.diagnosis)).toEqual(fault.cases.map((c) => c.diagnosis));
    expect(again.verdict).toBe('diverge');
  });

  it('a tighter tolerance flips a clean run to diverge; a looser one clears a divergence', () => {
    const tight = rejudgeRun(clean, { default: 1e-9 });
    expect(tight.verdict).toBe('diverge');
    expect(tight.scenario.tolerances.default).toBe(1e-9);
    const loose = rejudgeRun(fault, { default: 1 });
    expect(loose.verdict).toBe('agree');
    expect(loose.cases.every((c) => c.diagnosis.length === 0 && !c.detail)).toBe(true);
    expect(loose.cases[0]!.expectation?.met).toBe(false);
  });
});
