import type * as tfc from '@tensorflow/tfjs-core';
import type { Runtime } from '../../devices/runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { hostStatsKernel } from '../../test-utils/stats-kernel';
import type { StageRecord } from './recorder';
import { TensorRecorder } from './tensor-recorder';
import { hostStats } from './stats';
import { launchStats, settleStats } from './stats-batch';
import type { StatsKernel } from './stats-partials';

/** TensorRecorder.finish: every tap's stats and check launched first, read back together, records as before. */
describe('batched stats on cpu', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('cpu');
  });
  const wave = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * (i % 11 === 0 ? 6 : 1));

  /** Three taps out of pipeline order, one check before its tap and one after, kv_c retained. */
  async function record(
    stats: StatsKernel | undefined,
    view: (t: tfc.Tensor) => Float32Array | null = () => null,
    settle = false,
  ): Promise<StageRecord[]> {
    const { tf } = rt;
    const rec = new TensorRecorder(tf, { stats, retain: new Set(['kv_c']) }, view);
    tf.tidy(() => {
      rec.check('lse', 'lse_bounds', tf.scalar(2, 'int32'));
      rec.tap('lse', tf.tensor(wave(300, 0.7), [3, 100]));
      rec.tap('kv_c', tf.tensor(wave(5000, 1.1), [5, 1000]));
      if (settle) rec.settle(); // inside a tidy: what it reads must outlive it
    });
    tf.tidy(() => {
      rec.check('kv_c', 'overflow', 7);
      rec.tap('q_c', tf.tensor(wave(130, 2.3), [130]));
    });
    const { trace, captured } = await rec.finish('mha');
    expect([...captured.keys()]).toEqual(['0//kv_c/']);
    for (const c of captured.values()) if (c.where === 'device') c.tensor.dispose();
    return trace.stages;
  }

  it('with a stats kernel, the records equal those of the host view and of deviceStats, in pipeline order, no leak', async () => {
    const kernel = hostStatsKernel(rt.tf, 64);
    const fused = await expectNoLeak(rt, () => record(kernel));
    const viewed = await expectNoLeak(rt, () => record(undefined, (t) => rt.hostView(t)));
    const generic = await expectNoLeak(rt, () => record(undefined));
    expect(kernel.launches).toBe(3);
    expect(fused.map((s) => [s.stage, s.checks])).toEqual([
      ['q_c', undefined],
      ['kv_c', [{ name: 'overflow', violations: 7 }]],
      ['lse', [{ name: 'lse_bounds', violations: 2 }]],
    ]);
    for (const [i, s] of fused.entries()) {
      const want = hostStats(
        wave(...({ q_c: [130, 2.3], kv_c: [5000, 1.1], lse: [300, 0.7] } as const)[s.stage as 'q_c']),
        s.stats.shape,
        'float32',
        s.stats.layout,
      );
      for (const other of [s, viewed[i]!, generic[i]!]) {
        expect({ ...other, stats: { ...other.stats, l2: 0, rms: 0, mean: 0 } }).toEqual({
          ...s,
          stats: { ...want, l2: 0, rms: 0, mean: 0 },
        });
        expect(Math.abs(other.stats.l2 - want.l2)).toBeLessThanOrEqual(1e-6 * want.l2);
        expect(Math.abs(other.stats.mean - want.mean)).toBeLessThanOrEqual(1e-6 * want.rms);
      }
    }
  });

  it(
    'with a kernel taking several tensors per launch, taps wait for a full batch (the rest go at finish); ' +
      'records as one by one, no leak',
    async () => {
      const [single, batched] = [hostStatsKernel(rt.tf, 64), hostStatsKernel(rt.tf, 64, 2)];
      const one = await expectNoLeak(rt, () => record(single));
      const many = await expectNoLeak(rt, () => record(batched));
      expect([single.launches, batched.launches]).toEqual([3, 2]); // 3 taps: a batch of 2 at the second tap, 1 at finish
      expect(many).toEqual(one);
    },
  );

  it(
    'settle launches the taps so far (a partial batch too) and starts reading them back; ' +
      'later taps go at finish; records as without it, no leak',
    async () => {
      const reads: number[] = [];
      const counted = (k: StatsKernel & { launches: number }): StatsKernel => ({
        groupSize: k.groupSize,
        maxBatch: 4,
        launch: (x) => k.launch(x),
        launchMany: (xs) => {
          const p = k.launchMany!(xs);
          const data = p.data.bind(p);
          p.data = (() => {
            reads.push(xs.length);
            return data();
          }) as typeof p.data;
          return p;
        },
      });
      const plain = await expectNoLeak(rt, () => record(hostStatsKernel(rt.tf, 64, 4)));
      const settled = await expectNoLeak(rt, () => record(counted(hostStatsKernel(rt.tf, 64, 4)), undefined, true));
      expect(settled).toEqual(plain);
      expect(reads).toEqual([2, 1]); // lse and kv_c read at settle (a batch of 2 of 4), q_c at finish
    },
  );

  it('dispose frees the taps still waiting for a batch', async () => {
    const kernel = hostStatsKernel(rt.tf, 64, 4);
    await expectNoLeak(rt, async () => {
      const rec = new TensorRecorder(rt.tf, { stats: kernel, retain: new Set(['kv_c']) });
      rt.tf.tidy(() => {
        rec.tap('q_c', rt.tf.ones([5]));
        rec.tap('kv_c', rt.tf.ones([3]));
      });
      expect(kernel.launches).toBe(0);
      rec.dispose();
    });
  });

  it('launches every tap, then reads all their partials back in one joined read (none on its own)', async () => {
    const events: string[] = [];
    const inner = hostStatsKernel(rt.tf, 64);
    const kernel: StatsKernel = {
      groupSize: 64,
      launch(x) {
        events.push('launch');
        const p = inner.launch(x);
        const data = p.data.bind(p);
        p.data = (() => {
          events.push('read');
          return data();
        }) as typeof p.data;
        return p;
      },
    };
    await expectNoLeak(rt, () => record(kernel));
    expect(events).toEqual(['launch', 'launch', 'launch']);
  });

  it('int32 and empty tensors do not reach the kernel', async () => {
    const { tf } = rt;
    const kernel = hostStatsKernel(tf, 8);
    await expectNoLeak(rt, async () => {
      const xs = [tf.tensor([1, -4, 4], [3], 'int32'), tf.zeros([0, 4]), tf.tensor([NaN, 2, -Infinity], [3])];
      const stats = await settleStats(
        tf,
        xs.map((x) => launchStats(tf, x, 'x', () => null, kernel)),
      );
      tf.dispose(xs);
      expect(kernel.launches).toBe(1);
      expect(stats[1]).toEqual(hostStats([], [0, 4], 'float32', 'x')); // as deviceStats: no device work
      expect([stats[0], stats[2]].map((s) => [s!.size, s!.maxAbs, s!.maxAbsAt, s!.nanCount, s!.infCount])).toEqual([
        [3, 4, [1], 0, 0],
        [3, 2, [1], 1, 1],
      ]);
    });
  });

  it('a launch that fails throws at the tap (stats start there); dispose frees everything', async () => {
    const { tf } = rt;
    const inner = hostStatsKernel(tf, 64);
    const kernel: StatsKernel = {
      groupSize: 64,
      launch: (x) => {
        if (inner.launches) throw new Error('device lost');
        return inner.launch(x);
      },
    };
    await expectNoLeak(rt, async () => {
      const rec = new TensorRecorder(tf, { stats: kernel });
      expect(() =>
        tf.tidy(() => {
          rec.tap('q_c', tf.ones([4]));
          rec.check('kv_c', 'overflow', tf.scalar(1, 'int32'));
          rec.tap('kv_c', tf.ones([4]));
        }),
      ).toThrow('device lost');
      rec.dispose();
    });
  });
});
