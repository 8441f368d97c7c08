import type { Runtime } from '../../devices/runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { NULL_PROBE } from './probe';
import { TensorRecorder } from './tensor-recorder';
import { HostRecorder } from './host-recorder';

describe('probes', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it('NULL_PROBE is an identity that records and holds nothing', async () => {
    await expectNoLeak(rt, async () => {
      const x = rt.tf.zeros([2, 3]);
      expect(NULL_PROBE.tap('q_nope', x)).toBe(x);
      expect(NULL_PROBE.enabled).toBe(false);
      expect(NULL_PROBE.wants('logits')).toBe(false);
      x.dispose();
    });
  });

  it('a recorder tap returns its input, survives tf.tidy, and frees everything on finish', async () => {
    await expectNoLeak(rt, async () => {
      const rec = new TensorRecorder(rt.tf, { retain: new Set(['kv_c']) }, (t) => rt.hostView(t));
      const out = rt.tf.tidy(() => {
        const a = rt.tf.ones([3, 4]);
        expect(rec.tap('kv_c', a)).toBe(a);
        rec.tap('q_c', rt.tf.mul(a, 2));
        rec.scalar('softmax_scale', 0.0625);
        return rt.tf.sum(a);
      });
      out.dispose();
      const { trace, captured } = await rec.finish('mha');
      expect(trace.stages.map((s) => s.stage)).toEqual(['q_c', 'kv_c']); // pipeline order, not tap order
      expect(trace.stages[0]!.stats.l2).toBeCloseTo(Math.sqrt(12 * 4), 6);
      expect(trace.pieces[0]!.scalars.softmax_scale).toBe(0.0625);
      expect([...captured.keys()]).toEqual(['0//kv_c/']);
      for (const c of captured.values()) if (c.where === 'device') c.tensor.dispose();
    });
  });

  it('offload: retained values leave device memory as they are tapped, as host copies, with the same stats', async () => {
    await expectNoLeak(rt, async () => {
      const run = async (offload: boolean) => {
        const rec = new TensorRecorder(rt.tf, { retain: new Set(['kv_c', 'q_c']), offload: () => offload }, (t) => rt.hostView(t));
        const before = rt.tf.memory().numTensors;
        rt.tf.tidy(() => {
          const a = rt.tf.tensor2d([
            [1, -2, 3],
            [4, 5, -6],
          ]);
          rec.tap('kv_c', a, 't c');
          rec.tap('q_c', rt.tf.mul(a, 0.5));
          rec.tap('kv_lora', rt.tf.neg(a), 't c'); // not retained: released either way
        });
        const held = rt.tf.memory().numTensors - before;
        return { held, ...(await rec.finish('mqa')) };
      };
      const [kept, moved] = [await run(false), await run(true)];
      expect(kept.held).toBe(2); // the two retained values, on the device
      expect(moved.held).toBe(0); // nothing left in the wasm heap
      expect(moved.trace.stages).toEqual(kept.trace.stages);
      for (const [key, c] of moved.captured) {
        const d = kept.captured.get(key)!;
        expect(c.where).toBe('host');
        if (c.where !== 'host' || d.where !== 'device') continue;
        expect(c.shape).toEqual(d.tensor.shape);
        expect(c.layout).toBe(d.layout);
        expect(Array.from(c.data)).toEqual(Array.from(d.tensor.dataSync()));
      }
      expect([...moved.captured.keys()]).toEqual([...kept.captured.keys()]);
      for (const c of kept.captured.values()) if (c.where === 'device') c.tensor.dispose();
    });
  });

  it('a filter limits what is recorded and `wants` says so', async () => {
    await expectNoLeak(rt, async () => {
      const rec = new TensorRecorder(rt.tf, { filter: (s) => s === 'lse' });
      expect(rec.wants('lse')).toBe(true);
      expect(rec.wants('logits')).toBe(false);
      const x = rt.tf.ones([2]);
      rec.tap('logits', x);
      expect((await rec.finish('mqa')).trace.stages).toEqual([]);
      x.dispose();
    });
  });

  it('dispose releases what an interrupted path left with the recorder', async () => {
    await expectNoLeak(rt, async () => {
      const rec = new TensorRecorder(rt.tf);
      rt.tf.tidy(() => {
        rec.tap('q_c', rt.tf.ones([4]));
      });
      rec.dispose();
    });
  });

  it('records belong to the piece set by `at`, ordered by piece then pipeline; chunks interleave chunk by chunk', () => {
    const rec = new HostRecorder({ retain: new Set(['lse', 'chunk_lse']) });
    const t = (v: number) => ({ shape: [1], data: Float64Array.from([v]) });
    rec.at({ step: 1, request: 'b' });
    rec.tap('lse', t(1));
    rec.tap('context_lse', t(2), undefined, 1);
    rec.tap('chunk_lse', t(3), undefined, 1);
    rec.tap('context_lse', t(4), undefined, 0);
    rec.scalar('has_context', true);
    rec.at({ step: 0, request: 'a' });
    rec.tap('lse', t(5));
    const { trace, captured } = rec.finish('reference');
    expect(trace.stages.map((s) => `${s.step}/${s.request}/${s.stage}${s.chunk === undefined ? '' : `[${s.chunk}]`}`)).toEqual([
      '1/b/context_lse[0]',
      '1/b/chunk_lse[1]',
      '1/b/context_lse[1]',
      '1/b/lse',
      '0/a/lse',
    ]);
    expect(trace.pieces).toEqual([
      { step: 1, request: 'b', scalars: { has_context: true } },
      { step: 0, request: 'a', scalars: {} },
    ]);
    expect([...captured.keys()].sort()).toEqual(['0/a/lse/', '1/b/chunk_lse/1', '1/b/lse/']);
  });

  it('checks attach to the tap of the same piece and chunk, also when made before it (a rounding counts overflow first)', () => {
    const rec = new HostRecorder();
    rec.at({ step: 2, request: 'r' });
    rec.check('lse', 'overflow', 1);
    rec.check('q_c', 'overflow', 5); // never tapped: dropped
    rec.tap('lse', { shape: [1], data: new Float64Array(1) });
    rec.check('lse', 'lse_bounds', 3);
    rec.at({ step: 3, request: 'r' });
    rec.tap('lse', { shape: [1], data: new Float64Array(1) });
    const stages = rec.finish('reference').trace.stages;
    expect(stages.map((s) => s.checks ?? [])).toEqual([
      [
        { name: 'overflow', violations: 1 },
        { name: 'lse_bounds', violations: 3 },
      ],
      [],
    ]);
  });

  it('tapping a stage twice is a programming error', () => {
    const rec = new HostRecorder();
    const t = { shape: [1], data: new Float64Array(1) };
    rec.tap('lse', t);
    expect(() => rec.tap('lse', t)).toThrow(/twice/);
  });

  it('records float32 host tensors (rearranged weights) as float32', () => {
    const rec = new HostRecorder();
    rec.tap('W_UK_T', { shape: [1, 2, 2], data: Float32Array.from([1, 2, 3, 4]) });
    rec.tap('q_c', { shape: [2], data: Float64Array.from([1, 2]) });
    const { trace } = rec.finish('reference');
    expect(trace.stages.map((s) => [s.stage, s.stats.dtype])).toEqual([
      ['q_c', 'float64'],
      ['W_UK_T', 'float32'],
    ]);
  });
});
