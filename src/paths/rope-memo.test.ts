import type { Runtime } from '../devices/runtime';
import { preset } from '../core/model/presets';
import { ropeTables } from '../core/model/rope';
import { testRuntime } from '../test-utils/runtime';
import { RopeMemo } from './rope-memo';

describe('RopeMemo', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('cpu');
  });

  it('gives ropeTables in float32, once per positions array, keeping the last `capacity` and releasing the rest', async () => {
    const cfg = preset('glm-5');
    const before = rt.tf.memory().numTensors;
    const memo = new RopeMemo(rt.tf, cfg, 2);
    const a = [0, 1, 2, 7];
    const t = ropeTables(cfg, a);
    const first = memo.tensors(a);
    expect(Array.from(await first.cos.data())).toEqual(Array.from(Float32Array.from(t.cos)));
    expect(Array.from(await first.sin.data())).toEqual(Array.from(Float32Array.from(t.sin)));
    expect(first.cos.shape).toEqual([4, t.half]);
    expect(memo.tensors(a)).toBe(first); // same array: no new tables
    expect(memo.tensors([0, 1, 2, 7])).not.toBe(first); // another array (same values): its own
    memo.tensors([5]); // a third array: the least recently used (a) is released
    expect(first.cos.isDisposed).toBe(true);
    expect(rt.tf.memory().numTensors).toBe(before + 4);
    memo.clear();
    expect(rt.tf.memory().numTensors).toBe(before);
  });
});
