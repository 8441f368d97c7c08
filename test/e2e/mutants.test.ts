import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import execa from 'execa';
import { ROOT } from './cli-helpers';
import { mla } from './external-helpers';

/**
 * Our own mutant set (issue 21): an independent third-party MLA layer (examples/backends/mutants/mla-mutant.mjs)
 * with one bug per mutant that no fault of the catalogue models, through the external protocol at the tiny preset
 * (scenarios/mutants/*.yaml, one CLI run over all of them). Every mutant is detected, localized at the stage and
 * piece where its bug enters and attributed to the third party, its entry record marked introduced; the clean
 * backend agrees at float64 rounding; every mutant gets a likely cause, the right one where CAUSES has it.
 * Scores at both sizes: bench/mutants/score.mjs, results.md.
 */
jest.setTimeout(180_000);

interface Mutant {
  enters: string;
  piece: 'first' | 'context' | 'decode';
  causes: string[];
}
interface Where {
  step: number;
  request: string;
  stage: string;
  chunk?: number;
}
interface MutantRun {
  verdict: string;
  scenario: { name: string };
  cases: {
    trace: { diffs: { a: string; b: string; relErr: number | null }[] };
    comparison: { firstDivergence: (Where & { culprit: string; verdict: string }) | null };
    diagnosis: { cause: string }[];
    replay?: { results: (Where & { path: string; origin: string })[] };
    expectation?: { met: boolean; misses: string[] };
  }[];
}

const DIR = join(ROOT, 'scenarios', 'mutants');
/** Where each `piece` of mutants.mjs is in the scenarios' schedule (bench/mutants/scenarios.mjs PIECES). */
const PIECES = { first: { step: 0, request: 'chat' }, context: { step: 1, request: 'chat' }, decode: { step: 2, request: 'chat' } };

let mutants: Record<string, Mutant>;
let runs: Map<string, MutantRun>;

beforeAll(async () => {
  const table = await execa('node', ['--input-type=module', '-e', TABLE], { cwd: ROOT });
  mutants = JSON.parse(table.stdout) as Record<string, Mutant>;
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(DIR, f));
  const r = await mla(['run', ...files, '--format', 'json', '--no-expect']);
  expect(r.exitCode).toBe(1); // the mutants diverge: judged by agreement, they fail
  const doc = JSON.parse(r.stdout) as { runs: MutantRun[] };
  runs = new Map(doc.runs.map((x) => [x.scenario.name.replace(/^mutant-/, ''), x]));
});

const TABLE = "import('./examples/backends/mutants/mutants.mjs').then((m) => console.log(JSON.stringify(m.MUTANTS)))";

describe('our own mutant set through the external protocol (tiny preset)', () => {
  it('has a scenario per mutant, as bench/mutants/scenarios.mjs writes them, and ≥ 8 mutants', async () => {
    const check = await execa('node', ['bench/mutants/scenarios.mjs', '--check'], { cwd: ROOT, reject: false });
    expect(check.stderr).toBe('');
    expect(check.exitCode).toBe(0);
    expect(Object.keys(mutants).length).toBeGreaterThanOrEqual(8);
    expect([...runs.keys()].sort()).toEqual(['clean', ...Object.keys(mutants)].sort());
  });

  it('the backend unmutated agrees with the float64 reference at float64 rounding, at every stage it writes', () => {
    const clean = runs.get('clean')!;
    expect(clean.verdict).toBe('agree');
    const vsRef = clean.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.b === 'reference');
    expect(vsRef.length).toBeGreaterThan(100); // 25 stages × 5 attending pieces, less the weight stages' repeats
    for (const d of vsRef) expect(d.relErr).toBeLessThan(1e-12);
  });

  it('detects, localizes and attributes every mutant; its entry record is introduced there', () => {
    for (const [name, m] of Object.entries(mutants)) {
      const run = runs.get(name)!;
      const c = run.cases[0]!;
      const f = c.comparison.firstDivergence;
      expect({ name, verdict: run.verdict }).toEqual({ name, verdict: 'diverge' });
      expect({ name, ...f }).toMatchObject({ name, stage: m.enters, ...PIECES[m.piece], culprit: 'external' });
      expect({ name, met: c.expectation?.met }).toEqual({ name, met: true });
      const origins = (c.replay?.results ?? []).filter(
        (r) => r.path === 'external' && r.step === f!.step && r.request === f!.request && r.stage === f!.stage,
      );
      expect({ name, origins: origins.map((r) => r.origin) }).toEqual({ name, origins: ['introduced'] });
    }
  });

  it('gives every mutant a likely cause, one that names the bug where a cause of CAUSES does (mutants.mjs causes)', () => {
    for (const [name, m] of Object.entries(mutants)) {
      const causes = runs.get(name)!.cases[0]!.diagnosis.map((d) => d.cause);
      expect({ name, diagnosed: causes.length > 0 }).toEqual({ name, diagnosed: true });
      if (m.causes.length) expect({ name, named: causes.some((x) => m.causes.includes(x)) }).toEqual({ name, named: true });
    }
  });
});
