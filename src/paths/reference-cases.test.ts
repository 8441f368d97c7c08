import { preset } from '../core/model/presets';
import { HostRecorder } from '../core/probes/host-recorder';
import { STAGE_NAMES } from '../trace/stages';
import { planRun } from '../harness/run/pieces';
import { parseScenario } from '../harness/scenario/load';
import { SyntheticWeights } from '../core/weights/synthetic';
import { ReferenceBackend } from './reference';
import { referenceCases, sliceHeadAxis } from './reference-cases';
import { loadHostBlas } from '../devices/kernels/host-blas';
import { JS_GEMM, blasGemm } from './reference-gemm';
import { createGemmPool } from './reference-gemm-pool';

describe('reference for several head slices in one pass', () => {
  it('sliceHeadAxis cuts the h axis and the flattened hv axis', () => {
    const x = { shape: [2, 3, 2], data: Float64Array.from({ length: 12 }, (_, i) => i) };
    expect(Array.from(sliceHeadAxis(x, 't h v', 1, 2, 2).data)).toEqual([2, 3, 4, 5, 8, 9, 10, 11]);
    const y = { shape: [2, 6], data: Float64Array.from({ length: 12 }, (_, i) => i) };
    expect(Array.from(sliceHeadAxis(y, 't hv', 2, 1, 2).data)).toEqual([4, 5, 10, 11]);
    const z = { shape: [2, 2], data: new Float64Array(4) };
    expect(sliceHeadAxis(z, 't l', 0, 1, 2)).toBe(z);
  });

  it('each case equals a separate float64 pass over its heads through a schedule with context, o_proj partial sum included', async () => {
    const s = parseScenario(
      [
        'name: r',
        'model: {preset: tiny}',
        'weights: {synthetic: {seed: 11}}',
        'schedule: {block_size: 4, context_chunk: 3, kv_splits: 2}',
        'requests:',
        '  - {name: a, steps: [{prefill: 5, chunk: 3}, {decode: 1}]}',
        '  - {name: b, steps: [{cached: 4}, {prefill: 2}]}',
      ].join('\n'),
    );
    const source = new SyntheticWeights(preset('tiny'), 11);
    const plan = planRun(s, source);
    const cases = [
      { start: 0, count: 4 },
      { start: 1, count: 2 },
    ];
    const all = new Set(STAGE_NAMES);
    const joint = await referenceCases(source, cases, plan.pieces, plan.kernels, all);
    for (const [i, heads] of cases.entries()) {
      const alone = new HostRecorder({ retain: all });
      const ref = new ReferenceBackend(source, heads, plan.kernels);
      for (const p of plan.pieces) {
        if (p.kind === 'cached') await ref.fill(p);
        else {
          alone.at(p);
          await ref.step(p, alone);
        }
      }
      const want = alone.finish('reference');
      expect([...joint[i]!.captured.keys()].sort()).toEqual([...want.captured.keys()].sort());
      for (const [key, b] of want.captured) {
        const a = joint[i]!.captured.get(key)!;
        if (a.where !== 'host' || b.where !== 'host') throw new Error('host captures expected');
        expect({ key, shape: a.shape }).toEqual({ key, shape: b.shape });
        expect(Array.from(a.data)).toEqual(Array.from(b.data));
      }
    }
  });

  it('the plain loops, a worker pool and the host BLAS record the same to float64 rounding (1e-12 of each record)', async () => {
    const s = parseScenario(
      [
        'name: r',
        'model: {preset: tiny}',
        'weights: {synthetic: {seed: 3}}',
        'schedule: {block_size: 4, context_chunk: 3, kv_splits: 3}',
        'requests:',
        '  - {name: a, steps: [{prefill: 9, chunk: 4}, {decode: 2}]}',
      ].join('\n'),
    );
    const source = new SyntheticWeights(preset('tiny'), 3);
    const plan = planRun(s, source);
    const all = new Set(STAGE_NAMES);
    const heads = [{ start: 1, count: 3 }];
    const pool = createGemmPool(2)!;
    const { blas } = loadHostBlas({ kind: 'auto' });
    try {
      const gemms = [JS_GEMM, pool, ...(blas ? [blasGemm(blas)!] : [])];
      const [want, ...others] = await Promise.all(gemms.map((g) => referenceCases(source, heads, plan.pieces, plan.kernels, all, g)));
      for (const got of others) {
        expect([...got[0]!.captured.keys()]).toEqual([...want![0]!.captured.keys()]);
        for (const [key, b] of want![0]!.captured) {
          const a = got[0]!.captured.get(key)!;
          if (a.where !== 'host' || b.where !== 'host') throw new Error('host captures expected');
          const scale = Math.max(1, ...Array.from(b.data, Math.abs));
          const worst = Math.max(0, ...Array.from(a.data, (x, i) => (Object.is(x, b.data[i]) ? 0 : Math.abs(x - b.data[i]!) / scale)));
          expect({ key, worst }).toEqual({ key, worst: expect.any(Number) });
          expect(worst).toBeLessThanOrEqual(1e-12);
        }
      }
    } finally {
      await pool.close();
    }
  });
});
