import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../run/trace';
import { compareRuns } from './compare-runs';
import { moved } from './case-changes';

const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;
const saved = (r: RunReport, file = 'x.json') => ({ file, runs: [r] });
const copy = (r: RunReport): RunReport => JSON.parse(JSON.stringify(r)) as RunReport;

describe('compareRuns', () => {
  const golden = load('tiny-smoke.report.json');

  it('a saved run against itself is the same, every record of every path compared', () => {
    const c = compareRuns(saved(golden), saved(copy(golden)));
    expect(c.verdict).toBe('same');
    expect(c.deviceDiffers).toBe(false);
    const records = golden.cases.map((k) => Object.values(k.trace.paths).reduce((n, p) => n + p!.stages.length, 0));
    expect(c.scenarios[0]!.cases.map((k) => k.compared)).toEqual(records);
  });

  it("one stage's norm moved on one path: exactly that stage, path and case", () => {
    const fresh = copy(golden);
    const rec = fresh.cases[1]!.trace.paths.mqa!.stages.find((r) => r.stage === 'attn_out_latent')!;
    rec.stats.l2 *= 1 + 1e-4;
    const c = compareRuns(saved(golden), saved(fresh));
    expect(c.verdict).toBe('changed');
    const [a, b] = c.scenarios[0]!.cases;
    expect(a!.status).toBe('same');
    expect(b!.changes.map((x) => [x.stage, x.path, x.kind])).toEqual([['attn_out_latent', 'mqa', 'norm']]);
    expect(b!.firstChange!.moved).toBeCloseTo(1e-4 / (1 + 1e-4), 8);
    expect(b!.firstChange!.tolerance).toBeLessThan(1e-4);
  });

  it('scenarios are matched by name: two different scenarios are each only in one run', () => {
    const c = compareRuns(saved(golden), saved(load('fault-mqa-scale-576.tp0.report.json')));
    expect(c.verdict).toBe('changed');
    expect(c.scenarios.map((s) => s.status).sort()).toEqual(['only-golden', 'only-new']);
  });

  it('NaN appearing, a shape change, a record only in one run, a verdict change', () => {
    const fresh = copy(golden);
    const stages = fresh.cases[0]!.trace.paths.mha!.stages;
    const q = stages.find((r) => r.stage === 'q_nope')!;
    q.stats.nanCount = 3;
    const v = stages.find((r) => r.stage === 'v')!;
    v.stats.shape = [...v.stats.shape, 1];
    stages.splice(
      stages.findIndex((r) => r.stage === 'lse'),
      1,
    );
    fresh.cases[0]!.comparison.verdict = 'diverge';
    const k = compareRuns(saved(golden), saved(fresh)).scenarios[0]!.cases[0]!;
    expect(k.changes.map((x) => [x.stage, x.kind]).sort()).toEqual([
      ['lse', 'only-golden'],
      ['q_nope', 'nan'],
      ['v', 'shape'],
    ]);
    expect(k.outcomeChanged).toBe(true);
    expect(k.status).toBe('changed');
  });

  it('--rel: a fixed bound; the device difference is a note', () => {
    const fresh = copy(golden);
    fresh.device = { ...fresh.device, name: 'wasm', description: 'wasm' };
    fresh.cases[0]!.trace.paths.mha!.stages[0]!.stats.l2 *= 1 + 1e-6;
    expect(compareRuns(saved(golden), saved(fresh), { rel: 1e-5, k: 8, fallback: 1e-5 }).verdict).toBe('same');
    const c = compareRuns(saved(golden), saved(fresh), { rel: 1e-7, k: 8, fallback: 1e-5 });
    expect(c.verdict).toBe('changed');
    expect(c.deviceDiffers).toBe(true);
  });

  it('moved() is a lower bound of the relative error: norm and max-abs differences over the larger norm', () => {
    const s = (l2: number, maxAbs: number) => ({ shape: [2], l2, maxAbs, nanCount: 0, infCount: 0 });
    expect(moved(s(5, 4), s(5, 4))).toBe(0);
    expect(moved(s(5, 4), s(4, 4))).toBeCloseTo(0.2, 12);
    expect(moved(s(5, 4), s(5, 3))).toBeCloseTo(0.2, 12);
    expect(moved(s(0, 0), s(0, 0))).toBe(0);
    expect(moved(s(0, 0), s(0, 1))).toBe(Infinity);
  });
});
