import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PATH_NAMES, STAGE_NAMES } from './stages';
import type { Runtime } from '../devices/runtime';
import { runScenario } from '../harness/run/run-scenario';
import { loadScenario } from '../harness/scenario/load';
import { runSelftest } from '../harness/selftest/run';
import { expectNoLeak, testRuntime } from '../test-utils/runtime';
import { CAUSES, CULPRITS, VERDICTS } from './names';
import type { RunReport } from './report';
import { RUN_VERSION } from './report';
import { schemaFiles } from './reports';
import { reportValidator } from './validate';

/**
 * The shipped JSON Schemas (schema/*.json) are the generated ones, their enums are the source's
 * closed sets, every report the tool writes validates, and a broken report fails where it is broken.
 */
const ROOT = resolve(__dirname, '../..');
const { validate } = reportValidator();
const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as RunReport;
/** A report as a reader sees it: through JSON (NaN and ±Infinity become null). */
const asJson = <T>(x: T) => JSON.parse(JSON.stringify(x)) as T;

jest.setTimeout(300_000);

let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime();
});

describe('schema files', () => {
  it.each(Object.entries(schemaFiles()))('schema/%s is what src/trace generates (npm run schemas)', (name, schema) => {
    expect(JSON.parse(readFileSync(join(ROOT, 'schema', name), 'utf8'))).toEqual(schema);
  });

  it('takes its enums from the closed sets of the source', () => {
    const defs = schemaFiles()[`run-v${RUN_VERSION}.schema.json`]!.$defs as Record<string, { enum: string[] }>;
    expect(defs['stage']!.enum).toEqual([...STAGE_NAMES]);
    expect(defs['path']!.enum).toEqual([...PATH_NAMES]);
    expect(defs['culprit']!.enum).toEqual([...CULPRITS]);
    expect(defs['culprit']!.enum).toContain('external');
    expect(defs['verdict']!.enum).toEqual([...VERDICTS]);
    expect(new Set(VERDICTS).size).toBe(VERDICTS.length);
    expect(new Set(CAUSES).size).toBe(CAUSES.length);
  });
});

describe('reports validate', () => {
  it.each(['tiny-smoke', 'fault-mqa-scale-576.tp0', 'tiny-schedule-lse-layout'])('fixtures/%s.report.json', (name) => {
    expect(validate(readJson(`fixtures/${name}.report.json`))).toEqual({ ok: true, kind: `mla-diff/run v${RUN_VERSION}`, errors: [] });
  });

  const fresh = (file: string) =>
    expectNoLeak(rt, () => runScenario(loadScenario(join(ROOT, file)), { runtime: rt, toolVersion: 'test', worker: false }));

  it(
    'fresh runs: a clean scenario, a fault, an external backend (agreeing and broken), ' + 'two weight sources; and them as mla-diff/runs',
    async () => {
      const files = [
        'scenarios/tiny-smoke.yaml',
        'scenarios/fault-mqa-scale-576.yaml',
        'scenarios/external-node.yaml',
        'scenarios/fault-external-w-uv-wrong-axis.yaml',
        'scenarios/checkpoint-gguf-vs-safetensors.yaml',
      ];
      const runs: RunReport[] = [];
      for (const f of files) runs.push(asJson(await fresh(f)));
      for (const r of runs) expect(validate(r).errors).toEqual([]);
      // what the runs exercise: both verdicts, the external path and culprit, the W stage
      expect(runs.map((r) => r.verdict)).toEqual(['agree', 'diverge', 'agree', 'diverge', 'agree']);
      expect(runs[2]!.cases[0]!.trace.paths.external).toBeDefined();
      expect(runs[3]!.cases[0]!.comparison.firstDivergence?.culprit).toBe('external');
      expect(runs[4]!.weights?.comparison).toBeDefined();
      expect(validate({ format: 'mla-diff/runs', version: 1, runs })).toMatchObject({ ok: true, errors: [] });
    },
  );

  it('a selftest report (one shape, one seed)', async () => {
    const r = asJson(await expectNoLeak(rt, () => runSelftest(rt, { seeds: [1], shapes: ['tiny'] }, () => {}, 8)));
    expect(r.rows.length).toBeGreaterThan(0);
    expect(validate(r)).toEqual({ ok: true, kind: 'mla-diff/selftest v1', errors: [] });
  });
});

describe('broken reports fail where they are broken', () => {
  const base = () => readJson('fixtures/fault-mqa-scale-576.tp0.report.json');
  const errorsOf = (doc: unknown) => validate(doc).errors;

  it('an unknown verdict', () => {
    const r = base();
    (r.cases[0]!.comparison.stages[3] as { verdict: string }).verdict = 'almost-ok';
    expect(errorsOf(r)).toContainEqual({
      at: '/cases/0/comparison/stages/3/verdict',
      message: expect.stringMatching(/^must be equal to one of the allowed values/),
    });
  });

  it('an unknown culprit, stage and path', () => {
    const r = base();
    (r.cases[0]!.comparison.firstDivergence as { culprit: string }).culprit = 'gpu';
    (r.cases[0]!.trace.diffs[0] as { stage: string }).stage = 'q_rope';
    (r.cases[0]!.trace.diffs[1] as { a: string }).a = 'flash';
    expect(errorsOf(r).map((e) => e.at)).toEqual(
      expect.arrayContaining(['/cases/0/comparison/firstDivergence/culprit', '/cases/0/trace/diffs/0/stage', '/cases/0/trace/diffs/1/a']),
    );
  });

  it('a missing field, an undocumented field', () => {
    const r = base() as unknown as { cases: { trace: Record<string, unknown> }[]; device: Record<string, unknown> };
    delete r.cases[0]!.trace['totalHeads'];
    r.device['gpuCount'] = 1;
    expect(errorsOf(r)).toEqual(
      expect.arrayContaining([
        { at: '/cases/0/trace', message: "must have required property 'totalHeads'" },
        { at: '/device', message: 'must NOT have additional properties (gpuCount)' },
      ]),
    );
  });

  it('a wrong version, an unknown format', () => {
    expect(errorsOf({ ...base(), version: 3 })).toEqual([{ at: '/version', message: 'must be equal to constant' }]);
    expect(validate({ format: 'mla-diff/trace', version: 1 })).toMatchObject({ ok: false, errors: [{ at: '/format' }] });
    expect(validate(null)).toMatchObject({ ok: false, errors: [{ at: '/format' }] });
  });

  it('a run inside mla-diff/runs', () => {
    const r = base();
    (r as { verdict: string }).verdict = 'maybe';
    expect(errorsOf({ format: 'mla-diff/runs', version: 1, runs: [base(), r] })).toContainEqual({
      at: '/runs/1/verdict',
      message: expect.stringMatching(/allowed values/),
    });
  });
});
