/** Planted-fault runs for diagnosis tests, each run once per factory (its own cache), and re-read with a third party as culprit. */
import type { FaultName, FaultPath } from '../core/faults/catalogue';
import type { CaseTrace, Diagnosis } from '../trace';
import type { StageName } from '../trace/stages';
import type { Runtime } from '../devices/runtime';
import { runScenario } from '../harness/run/run-scenario';
import type { CaseResult } from '../harness/run/trace';
import { parseScenario } from '../harness/scenario/load';
import type { Scenario } from '../harness/scenario/scenario';
import { selftestCases } from '../harness/selftest/cases';
import type { AsExternal } from './as-external';
import { asExternal } from './as-external';
import { expectNoLeak } from './runtime';

export type PlantedRun = { s: Scenario; c: CaseResult };

/** `rt()`: the suite's runtime (made in beforeAll). Runs of the selftest's planted cases (seed 4, tiny) are shared. */
export function plantedRuns(rt: () => Runtime) {
  const runs = new Map<string, Promise<PlantedRun>>();
  async function runYaml(yaml: string): Promise<PlantedRun> {
    const s = parseScenario(yaml);
    const r = await expectNoLeak(rt(), () => runScenario(s, { runtime: rt(), toolVersion: 'test', worker: false }));
    return { s, c: r.cases[0]! };
  }
  function run(fault: FaultName, path: FaultPath, schedule = 'prefill'): Promise<PlantedRun> {
    const key = `${fault}/${path}/${schedule}`;
    if (!runs.has(key)) {
      const k = selftestCases({ seeds: [4], shapes: ['tiny'] }).find(
        (x) => x.fault?.fault === fault && x.fault.path === path && x.name.endsWith(schedule),
      )!;
      runs.set(key, runYaml(k.yaml));
    }
    return runs.get(key)!;
  }
  /** The planted run re-read with the faulty path as the third party. */
  async function ext(fault: FaultName, path: FaultPath, schedule = 'prefill', o: AsExternal = {}) {
    const { s, c } = await run(fault, path, schedule);
    return asExternal(c, path, s, o);
  }
  return { runYaml, run, ext };
}

export const findCause = (d: Diagnosis[], cause: Diagnosis['cause']): Diagnosis | undefined => d.find((x) => x.cause === cause);

/** A path's record of a stage in the first piece. */
export const firstRecord = (t: CaseTrace, path: 'external' | 'reference', stage: StageName, chunk?: number) =>
  t.paths[path]!.stages.find((r) => r.stage === stage && r.chunk === chunk && r.step === t.pieces[0]!.step)!;
