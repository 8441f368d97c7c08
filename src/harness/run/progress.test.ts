import type { ProgressEvent } from '../../trace';
import type { Runtime } from '../../devices/runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { parseScenario } from '../scenario/load';
import { runScenario } from './run-scenario';

/** A tiny layer, reference on, `extra` YAML appended. */
const tiny = (name: string, extra = '') =>
  `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\nreference: on\n${extra}`;

async function phases(rt: Runtime, yaml: string): Promise<ProgressEvent[]> {
  const events: ProgressEvent[] = [];
  await expectNoLeak(rt, () => runScenario(parseScenario(yaml), { runtime: rt, toolVersion: 'test', progress: (e) => events.push(e) }));
  return events;
}

/** The phases in the order they first report, each once. */
const order = (events: ProgressEvent[]) => [...new Set(events.map((e) => e.phase))];

describe('run progress', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime();
  });

  it('an agreeing run reports every wait: each weight, each piece, the reference, the comparison', async () => {
    const events = await phases(rt, tiny('progress-agree'));
    expect(order(events)).toEqual(['weights', 'pieces', 'reference', 'compare']);
    const weights = events.filter((e) => e.phase === 'weights');
    expect(weights.map((e) => `${e.done}/${e.total}`)).toEqual(['0/5', '1/5', '2/5', '3/5', '4/5', '5/5']);
    expect(weights[4]!.label).toBe('synthetic(seed=3) · o_proj'); // the weight being synthesized
    const pieces = events.filter((e) => e.phase === 'pieces');
    expect(pieces.map((e) => `${e.done}/${e.total}`)).toEqual(['0/1', '1/1']); // before the piece runs, and once it has
    expect(events.filter((e) => e.phase === 'reference').map((e) => e.done)).toEqual([0, 1]);
    const compare = events.filter((e) => e.phase === 'compare');
    // the piece held for the reference, compared with it once it is in; then the records in report order
    expect(compare[0]!.label).toBe('case full · pieces compared with the third parties');
    expect(compare.filter((e) => e.label === 'case full · records compared').length).toBeGreaterThan(5);
    for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
  });

  it('a divergent run adds stage replay and the detail of the divergent stages', async () => {
    const events = await phases(rt, tiny('progress-fault', 'faults: [{path: mqa, fault: kv-norm-skipped}]\n'));
    expect(order(events)).toEqual(['weights', 'pieces', 'reference', 'compare', 'replay', 'detail']);
    const replay = events.filter((e) => e.phase === 'replay');
    expect(replay.at(-1)!.done).toBe(replay.at(-1)!.total);
    expect(events.filter((e) => e.phase === 'detail').map((e) => e.done)).toEqual([0, 1]);
  });
});
