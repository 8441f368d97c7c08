import type { Captured } from '../../core/probes/recorder';
import type { Runtime } from '../../devices/runtime';
import { hostDiffKernel } from '../../test-utils/diff-kernel';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import type { Where } from './diff';
import { diffCaptured } from './diff';

describe('stage diffs', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  const T = 3,
    N = 4;
  const lse = Float64Array.from({ length: N * T }, (_, i) => 5 + Math.sin(i)); // [N, T] canonical
  const transposed = () => {
    // [T, N], as Triton MLA returns it
    const out = new Float32Array(T * N);
    for (let h = 0; h < N; h++) for (let t = 0; t < T; t++) out[t * N + h] = lse[h * T + t]!;
    return out;
  };
  const host = (data: Float64Array | Float32Array, shape: number[], layout: string): Captured => ({ where: 'host', data, shape, layout });
  const at = (stage: Where['stage']): Where => ({ step: 0, request: 'r', stage });

  it('compares up to layout: [T,N] against [N,T] agrees', async () => {
    const d = await diffCaptured(
      rt.tf,
      () => null,
      at('lse'),
      ['mqa', host(transposed(), [T, N], 't h')],
      ['reference', host(lse, [N, T], 'h t')],
    );
    expect(d.shapeMatch).toBe(true);
    expect(d.relErr!).toBeLessThan(1e-7);
    expect(d.cosine!).toBeCloseTo(1, 7);
  });

  it.each([
    ['device with host views', true],
    ['device reductions', false],
  ])('device tensors, %s, give the host answer', async (_, views) => {
    await expectNoLeak(rt, async () => {
      const a = rt.tf.tensor(transposed(), [T, N]);
      const b = rt.tf.tensor(
        Float32Array.from(lse, (v, i) => (i === 5 ? v + 0.5 : v)),
        [N, T],
      );
      const view = views ? (t: Parameters<Runtime['hostView']>[0]) => rt.hostView(t) : () => null;
      const d = await diffCaptured(
        rt.tf,
        view,
        at('lse'),
        ['mqa', { where: 'device', tensor: a, layout: 't h' }],
        ['mha', { where: 'device', tensor: b, layout: 'h t' }],
      );
      a.dispose();
      b.dispose();
      expect(d.maxAbsErr!).toBeCloseTo(0.5, 5);
      expect(d.maxAbsErrAt).toEqual([1, 2]); // element 5 of [N=4, T=3] → h 1, t 2
      expect(d.normRatio!).toBeLessThan(1);
    });
  });

  it('counts NaN per side and measures the rest', async () => {
    const a = Float64Array.from([1, 2, NaN, 4]);
    const b = Float64Array.from([1, 2, 3, 4]);
    const d = await diffCaptured(rt.tf, () => null, at('q_c'), ['mha', host(a, [1, 4], 't q')], ['reference', host(b, [1, 4], 't q')]);
    expect(d.nan).toEqual([1, 0]);
    expect(d.relErr).toBe(0);
  });

  it.each([
    ['host', false],
    ['device', true],
  ])('on the %s, equal infinities agree and an unmatched one makes relErr Infinity', async (_, device) => {
    await expectNoLeak(rt, async () => {
      const cap = (v: number[]): Captured =>
        device ? { where: 'device', tensor: rt.tf.tensor2d(v, [1, 4]), layout: 'h t' } : host(Float64Array.from(v), [1, 4], 'h t');
      const [a, b, c] = [cap([-Infinity, 1, 2, 3]), cap([-Infinity, 1, 2, 3]), cap([Infinity, 1, 2, 3])];
      const same = await diffCaptured(rt.tf, () => null, at('chunk_lse'), ['mha', a], ['reference', b]);
      const flip = await diffCaptured(rt.tf, () => null, at('chunk_lse'), ['mha', c], ['reference', b]);
      for (const x of [a, b, c]) if (x.where === 'device') x.tensor.dispose();
      expect([same.relErr, same.infMismatch]).toEqual([0, 0]);
      expect([flip.relErr, flip.infMismatch]).toEqual([Infinity, 1]);
    });
  });

  it('masked logits (an external backend wrote them after the causal mask) are diffed at the visible keys only', async () => {
    await expectNoLeak(rt, async () => {
      // [N=1, T=2, S=3] of a piece at cache index 1: query 0 sees keys 0, 1; query 1 all three
      const pre = Float64Array.from([1, 2, 3, 4, 5, 6]);
      const masked = Float32Array.from([1, 2, 0, 4, 5, 6.5]); // the masked key zeroed on import (records.ts), key 2 of query 1 off
      const dev = rt.tf.tensor3d(Float32Array.from(pre), [1, 2, 3]);
      const ext = { ...host(masked, [1, 2, 3], 'h t s'), masked: true as const };
      const both = await Promise.all([
        diffCaptured(rt.tf, () => null, at('logits'), ['external', ext], ['reference', host(pre, [1, 2, 3], 'h t s')]),
        diffCaptured(rt.tf, () => null, at('logits'), ['external', ext], ['mha', { where: 'device', tensor: dev, layout: 'h t s' }]),
      ]);
      dev.dispose();
      const visible = Math.hypot(1, 2, 4, 5, 6); // the reference's norm over the visible keys
      for (const d of both) {
        expect(d.maxAbsErr).toBeCloseTo(0.5, 6); // the masked key's 3 is not an error
        expect(d.maxAbsErrAt).toEqual([0, 1, 2]);
        expect(d.relErr!).toBeCloseTo(0.5 / Math.hypot(1, 2, 4, 5, 6.5), 6);
        expect(d.normRatio!).toBeCloseTo(Math.hypot(1, 2, 4, 5, 6.5) / visible, 6);
      }
    });
  });

  it('a fused diff kernel (as webgpu has) gives what the tfjs reductions and the host loop give, NaN, ±Inf, ties included', async () => {
    const n = 1000;
    const a = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * (i % 9 === 0 ? 1e3 : 1));
    const b = Float32Array.from(a, (v, i) => (i % 13 === 0 ? v + 1e-3 * Math.cos(i) : v));
    [a[3], b[7], a[20], b[20], a[21], b[22]] = [NaN, NaN, Infinity, Infinity, -Infinity, Infinity];
    [b[500], b[900]] = [a[500]! + 2, a[900]! - 2]; // a tie of |a − b| across groups: the first is reported
    const kernel = hostDiffKernel(rt.tf, 64);
    await expectNoLeak(rt, async () => {
      const [ta, tb] = [rt.tf.tensor2d(a, [10, 100]), rt.tf.tensor2d(b, [10, 100])];
      const cap = (t: typeof ta): Captured => ({ where: 'device', tensor: t, layout: 't q' });
      const run = (k?: typeof kernel, view: Parameters<typeof diffCaptured>[1] = () => null) =>
        diffCaptured(rt.tf, view, at('q_c'), ['mha', cap(ta)], ['mqa', cap(tb)], k);
      const [fused, ops, hostLoop] = [await run(kernel), await run(), await run(undefined, (t) => rt.hostView(t))];
      rt.tf.dispose([ta, tb]);
      expect(kernel.launches).toBe(1);
      // |a − b| in float32 on the device, as tf.sub gives it; in float64 by the host loop
      expect(fused).toMatchObject({ nan: [1, 1], infMismatch: 2, maxAbsErr: ops.maxAbsErr, maxAbsErrAt: [5, 0] });
      expect(fused.maxAbsErr!).toBeCloseTo(hostLoop.maxAbsErr!, 6);
      const scalars = { relErr: 0, cosine: 0, normRatio: 0, maxAbsErr: 0 };
      for (const other of [ops, hostLoop]) {
        expect({ ...fused, ...scalars }).toEqual({ ...other, ...scalars });
        expect(fused.relErr).toBe(Infinity); // the unmatched infinities
        expect(fused.cosine!).toBeCloseTo(other.cosine!, 6);
        expect(fused.normRatio!).toBeCloseTo(other.normRatio!, 6);
      }
    });
  });

  it('reports a shape mismatch instead of comparing', async () => {
    const d = await diffCaptured(
      rt.tf,
      () => null,
      at('q_c'),
      ['mha', host(new Float64Array(6), [2, 3], 't q')],
      ['mqa', host(new Float64Array(6), [3, 2], 't q')],
    );
    expect(d.shapeMatch).toBe(false);
    expect(d.relErr).toBeNull();
  });
});
