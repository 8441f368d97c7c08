import type { Runtime } from '../../devices/runtime';
import { join } from 'node:path';
import { loadScenario, parseScenario } from '../scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { runScenario } from './run-scenario';
import type { CaseResult } from './trace';

jest.setTimeout(120_000);

/**
 * The streaming comparison: whatever the budget of values kept past their piece, a case says the same
 * thing (diffs, verdicts, detail, replay, diagnosis); with no budget the values detail and replay read
 * are re-run, only their pieces' worth is held at once, and nothing is left behind.
 */
const SCHEDULE = [
  'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3}',
  'requests:',
  '  - {name: chat, steps: [{prefill: 12, chunk: 4}, {decode: 2}]}',
  '  - {name: hit, start_step: 1, steps: [{cached: 4}, {prefill: 3}]}',
];

async function run(rt: Runtime, keepBytes: number | undefined, extra: string[], statsOnlyFrom?: number): Promise<CaseResult> {
  const yaml = ['name: t', 'model: {preset: tiny}', 'weights: {synthetic: {seed: 5}}', ...SCHEDULE, ...extra].join('\n');
  const s = parseScenario(yaml, 'test.yaml');
  const r = await expectNoLeak(rt, () =>
    runScenario(s, {
      runtime: rt,
      toolVersion: 'test',
      worker: false,
      ...(keepBytes === undefined ? {} : { keepBytes }),
      ...(statsOnlyFrom === undefined ? {} : { statsOnlyFrom }),
    }),
  );
  return r.cases[0]!;
}

/** What a case says, without what the run measured of itself (seconds, memory). */
function said(c: CaseResult) {
  const { seconds, memory, ...trace } = c.trace;
  void seconds;
  void memory;
  const replay = c.replay && { ...c.replay, seconds: 0 };
  return { ...c, trace, replay };
}

describe('streaming comparison', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime();
  });

  it.each([
    ['with the float64 reference', ['reference: on', 'faults: [{path: mqa, fault: kv-norm-skipped}]']],
    ['engine paths only', ['reference: off', 'faults: [{path: mha, fault: lse-base-2}]']],
  ])('a divergent case says the same with every value kept and with none (%s)', async (_, extra) => {
    const kept = await run(rt, undefined, extra);
    const none = await run(rt, 0, extra);
    expect(kept.comparison.verdict).toBe('diverge');
    expect(kept.detail?.records.length).toBeGreaterThan(0);
    expect(kept.replay?.results.length).toBeGreaterThan(0);
    expect(said(none)).toEqual(said(kept));
    expect(kept.trace.memory!.rerunPieces).toBe(0);
    expect(none.trace.memory!.rerunPieces).toBeGreaterThan(0);
    // with no budget only one piece's values (and, with a reference, nothing more: it is in before the first piece ends)
    expect(none.trace.memory!.heldBytes).toBeLessThan(kept.trace.memory!.heldBytes);
  });

  it('values no pair reads, not kept (a large case), are re-run for what detail and replay read: the case says the same', async () => {
    const extra = ['reference: off', 'faults: [{path: mha, fault: lse-base-2}]'];
    const all = await run(rt, undefined, extra);
    const compared = await run(rt, undefined, extra, 0);
    expect(compared.comparison.verdict).toBe('diverge');
    expect(said(compared)).toEqual(said(all));
    expect(compared.trace.memory!.heldBytes).toBeLessThan(all.trace.memory!.heldBytes);
  });

  it('an external backend is compared the same, its run brought forward when the budget is spent', async () => {
    const s = loadScenario(join(__dirname, '../../../scenarios/external-node.yaml'));
    const go = (keepBytes?: number) =>
      expectNoLeak(rt, () =>
        runScenario(s, { runtime: rt, toolVersion: 'test', worker: false, ...(keepBytes === undefined ? {} : { keepBytes }) }),
      );
    const [kept, none] = [(await go()).cases[0]!, (await go(0)).cases[0]!];
    expect(kept.comparison.verdict).toBe('agree');
    expect(kept.trace.diffs.some((d) => d.a === 'external')).toBe(true);
    expect(said(none)).toEqual(said(kept));
  });

  it('an agreeing case with no budget re-runs nothing', async () => {
    const c = await run(rt, 0, ['reference: on']);
    expect(c.comparison.verdict).toBe('agree');
    expect(c.trace.memory).toEqual(expect.objectContaining({ rerunPieces: 0 }));
    expect(c.trace.diffs.length).toBeGreaterThan(100);
  });
});
