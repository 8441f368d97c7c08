import { originOf } from '../compare/origin';
import type { Origin, ReplayMode } from '../compare/origin';
import type { StageName } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { runScenario } from './run-scenario';
import type { CaseResult } from './trace';

jest.setTimeout(120_000);

/**
 * Stage replay end to end on a tiny layer: a planted fault's entry stage is marked introduced,
 * what flows from it inherited; with and without the float64 reference; skipped when the case
 * agrees or replay is off. No tensor left behind.
 */
async function run(
  rt: Runtime,
  faults: string[],
  opts: { reference?: 'on' | 'off'; replay?: ReplayMode; schedule?: string } = {},
): Promise<CaseResult> {
  const yaml = [
    'name: t',
    'model: {preset: tiny}',
    'weights: {synthetic: {seed: 1}}',
    opts.schedule ?? 'prompt: {length: 9, start_position: 3}',
    `reference: ${opts.reference ?? 'on'}`,
    ...(opts.reference === 'off' ? ['schedule: {cold: on}'] : []),
    `faults: [${faults.map((f) => `{path: ${f.split(':')[0]}, fault: ${f.split(':')[1]}}`).join(', ')}]`,
  ].join('\n');
  const r = await expectNoLeak(rt, () =>
    runScenario(parseScenario(yaml, 'test.yaml'), {
      runtime: rt,
      toolVersion: 'test',
      worker: false,
      ...(opts.replay ? { replay: opts.replay } : {}),
    }),
  );
  return r.cases[0]!;
}

/** stage → origin of every divergent record of the first divergent piece. */
function origins(c: CaseResult): Partial<Record<StageName, Origin | null>> {
  const f = c.comparison.firstDivergence!;
  const out: Partial<Record<StageName, Origin | null>> = {};
  for (const v of c.comparison.stages)
    if (v.verdict !== 'ok' && v.step === f.step && v.request === f.request) out[v.stage] = originOf(c.replay, v);
  return out;
}

const introducedOnly = (o: Partial<Record<StageName, Origin | null>>) =>
  Object.entries(o)
    .filter(([, x]) => x === 'introduced')
    .map(([s]) => s);

describe('stage replay (teacher forcing)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime();
  });

  it.each([
    ['mqa:kv-norm-skipped', ['kv_c_normed']],
    ['mqa:softmax-scale-latent', ['logits']],
    ['mha:rope-neox', ['q_pe', 'k_pe']], // the fault rotates both
  ])('%s: the entry stage introduced, every other divergent record of the piece inherited', async (fault, entry) => {
    const c = await run(rt, [fault]);
    const o = origins(c);
    expect(introducedOnly(o)).toEqual(entry);
    const rest = Object.entries(o).filter(([s]) => !entry.includes(s));
    expect(rest.length).toBeGreaterThan(2);
    expect(rest.filter(([, x]) => x !== 'inherited')).toEqual([]);
    for (const r of c.replay!.results.filter((x) => x.origin === 'inherited')) expect(r.relErrAfter!).toBeLessThanOrEqual(r.tolerance);
    expect(c.replay!.results.every((r) => r.source === 'reference' && r.inputs.every((i) => i.from === 'reference'))).toBe(true);
  });

  it('two faults in the mqa path at different stages: both entry stages introduced; the diagnosis reads the first', async () => {
    const c = await run(rt, ['mqa:kv-norm-skipped', 'mqa:softmax-scale-latent']);
    expect(introducedOnly(origins(c))).toEqual(['kv_c_normed', 'logits']);
    expect(origins(c).attn_out_latent).toBe('inherited');
    expect(c.diagnosis[0]?.matches).toBe('kv-norm-skipped');
  });

  it(
    'without the reference: judged against mha and cold; ' + 'an input only mqa records leaves the record undetermined, with the reason',
    async () => {
      const c = await run(rt, ['mqa:kv-norm-skipped'], { reference: 'off' });
      const o = origins(c);
      expect(o.kv_c_normed).toBe('introduced');
      expect(o.kv_cache).toBe('inherited');
      expect(o.logits).toBe('undetermined');
      const logits = c.replay!.results.find((r) => r.stage === 'logits')!;
      expect(logits.reason).toContain('mqa_q');
      expect(c.replay!.results.find((r) => r.stage === 'kv_c_normed')!.inputs).toEqual([
        { step: 0, request: 'prompt', stage: 'kv_c', from: 'mha' },
      ]);
    },
  );

  it(
    'over a schedule: cache reads get the latent rows of earlier pieces; ' + 'later pieces are replayed at their first divergent record',
    async () => {
      const schedule =
        'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3}\n' +
        'requests:\n  - {name: chat, steps: [{prefill: 8, chunk: 4}, {decode: 1}]}';
      const c = await run(rt, ['mqa:kv-norm-skipped'], { schedule });
      const later = c.replay!.results.filter((r) => r.step > 0);
      expect(later.map((r) => [r.step, r.stage, r.origin])).toEqual([
        [1, 'kv_c_normed', 'introduced'],
        [2, 'kv_c_normed', 'introduced'],
      ]);
      const cache = c.replay!.results.find((r) => r.step === 0 && r.stage === 'kv_cache')!;
      expect(cache.origin).toBe('inherited');
      const step1 = await run(rt, ['mqa:kv-norm-skipped'], { schedule, replay: 'on' });
      const cache1 = step1.replay!.results.find((r) => r.step === 1 && r.stage === 'kv_cache')!;
      expect([cache1.origin, cache1.inputs.filter((i) => i.step === 0).map((i) => i.stage)]).toEqual([
        'inherited',
        ['kv_c_normed', 'k_pe'],
      ]);
    },
  );

  it('is skipped when the case agrees, and with replay: off', async () => {
    expect((await run(rt, [])).replay).toBeUndefined();
    const off = await run(rt, ['mqa:kv-norm-skipped'], { replay: 'off' });
    expect(off.comparison.verdict).toBe('diverge');
    expect(off.replay).toBeUndefined();
  });
});

describe('stage replay with context chunks', () => {
  it('replays every divergent record of a piece whose merges read substituted chunks (replay: on), leaving nothing behind', async () => {
    const rt = await testRuntime();
    const schedule = 'schedule: {block_size: 4, context_chunk: 3}\nrequests:\n  - {name: hit, steps: [{cached: 7}, {prefill: 6}]}';
    const c = await run(rt, ['mha:lse-base-2'], { schedule, replay: 'on' });
    const chunks = c.replay!.results.filter((r) => r.stage === 'chunk_lse');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((r) => r.origin === 'introduced')).toBe(true); // every context kernel reports base 2
    expect(c.replay!.results.filter((r) => r.stage === 'context_lse' && r.chunk! > 0).map((r) => r.origin)).not.toContain('undetermined');
  });
});
