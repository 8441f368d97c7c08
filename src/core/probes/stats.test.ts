import type { Runtime } from '../../devices/runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { deviceStats, hostStats } from './stats';

describe.each(['wasm', 'cpu'] as const)('tensor stats on %s', (device) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime(device);
  });

  const values = () => Float32Array.from({ length: 6 * 7 }, (_, i) => Math.sin(i * 1.7) * (i % 5 === 0 ? 10 : 1));

  it('device stats equal exact host stats', async () => {
    const v = values();
    const x = rt.tf.tensor(v, [6, 7]);
    const d = await expectNoLeak(rt, () => deviceStats(rt.tf, x, 't d'));
    const h = hostStats(v, [6, 7], 'float32', 't d');
    x.dispose();
    expect(d.l2).toBeCloseTo(h.l2, 5);
    expect(d.mean).toBeCloseTo(h.mean, 6);
    expect(d.maxAbs).toBeCloseTo(h.maxAbs, 6);
    expect(d.maxAbsAt).toEqual(h.maxAbsAt);
    expect([d.nanCount, d.infCount]).toEqual([0, 0]);
  });

  it('counts NaN and Inf and keeps them out of the norm', async () => {
    const v = Float32Array.from([1, NaN, 2, Infinity, -Infinity, 2]);
    const x = rt.tf.tensor(v, [2, 3]);
    const d = await expectNoLeak(rt, () => deviceStats(rt.tf, x, 'a b'));
    x.dispose();
    expect(d.nanCount).toBe(1);
    expect(d.infCount).toBe(2);
    expect(d.l2).toBeCloseTo(3, 6);
    expect(hostStats(v, [2, 3], 'float32', 'a b')).toMatchObject({ nanCount: 1, infCount: 2, l2: 3 });
  });
});
