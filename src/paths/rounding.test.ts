import { TensorRecorder } from '../core/probes/tensor-recorder';
import type { Runtime } from '../devices/runtime';
import { expectNoLeak, testRuntime } from '../test-utils/runtime';
import { roundArray } from '../core/precision/formats';
import { FP32_PRECISION } from '../core/precision/plan';
import type { PrecisionSpec } from '../core/precision/plan';
import { fp32Rounding, pathRounding } from './rounding';

let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});

const spec = (extra: Partial<PrecisionSpec>): PrecisionSpec => ({ ...FP32_PRECISION, ...extra });
const kernels = (precision: PrecisionSpec) => ({ kvSplits: 1, emptyLse: '-inf' as const, precision });
const piece = { step: 0, request: 'r' };

describe('a path rounding on the device', () => {
  it('rounds at its points only, and counts fp16 overflow as a check on the stage it taps', async () => {
    await expectNoLeak(rt, async () => {
      const x = [1.00390625, 70000, -1e-9, 3.14159];
      const rd = pathRounding(rt, kernels(spec({ dtype: 'float16' })), 'mqa');
      const rec = new TensorRecorder(rt.tf);
      rec.at(piece);
      const t = rt.tf.tensor1d(x);
      const out = rt.tf.tidy(() => rd.at('ql_nope', t, rec)); // as inside a path's step
      rec.tap('ql_nope', out);
      expect(Array.from(await out.data())).toEqual(Array.from(roundArray(Float32Array.from(x), 'float16')));
      expect(rd.at('kv_nope', t, rec)).toBe(t); // not an mqa point
      const r = await rec.finish('mqa');
      expect(r.trace.stages[0]!.checks).toEqual([{ name: 'overflow', violations: 1 }]);
      for (const c of r.captured.values()) if (c.where === 'device') c.tensor.dispose();
      rt.tf.dispose([t, out]);
      rec.dispose();
    });
  });

  it('float32 is the identity, the cache included', () => {
    const rd = fp32Rounding(rt.tf, 'mha');
    const t = rt.tf.tensor2d([[1.1, 2.2]]);
    expect(rd.at('hidden_in', t)).toBe(t);
    expect(rd.cacheRows(t, 1)).toBe(t);
    t.dispose();
  });

  it('an fp8 cache with a per-tensor k_scale stores sat_fp8(x / k_scale)·k_scale and counts the clamped values', async () => {
    await expectNoLeak(rt, async () => {
      const rd = pathRounding(
        rt,
        kernels(spec({ dtype: 'bfloat16', kvCache: 'fp8_e4m3', cacheScale: { kind: 'per-tensor', k_scale: 0.5 } })),
        'mqa',
      );
      const rows = rt.tf.tensor2d([
        [0.3, -1000, 5],
        [1e-4, 224.1, 7],
      ]);
      const rec = new TensorRecorder(rt.tf);
      rec.at(piece);
      const out = rd.cacheRows(rows, 2, rec);
      rec.tap('kv_cache', out);
      const want = roundArray(Float32Array.from([0.6, -2000, 10, 2e-4, 448.2, 14].map((v) => Math.fround(v))), 'fp8_e4m3').map(
        (v) => v * 0.5,
      );
      expect(Array.from(await out.data())).toEqual(Array.from(want));
      const r = await rec.finish('mqa');
      expect(r.trace.stages[0]!.checks).toEqual([{ name: 'saturated', violations: 1 }]); // -2000 → -448; 448.2 rounds to 448
      for (const c of r.captured.values()) if (c.where === 'device') c.tensor.dispose();
      rt.tf.dispose([rows, out]);
      rec.dispose();
    });
  });

  it('per-token scales: each 128-wide tile of kv_c_normed maps its amax to 448 exactly; k_pe stays in the model dtype', async () => {
    await expectNoLeak(rt, async () => {
      const rd = pathRounding(
        rt,
        kernels(spec({ dtype: 'bfloat16', kvCache: 'fp8_e4m3', cacheScale: { kind: 'per-token', tile: 128 } })),
        'mha',
      );
      const L = 256;
      const row = Float32Array.from({ length: L + 2 }, (_, i) => Math.sin(i + 1) * (i < 128 ? 0.01 : 30));
      const rows = rt.tf.tensor2d(row, [1, L + 2]);
      const out = rd.cacheRows(rows, L);
      const got = await out.data();
      for (const [a, b] of [
        [0, 128],
        [128, 256],
      ] as const) {
        const amax = Math.max(...Array.from(row.slice(a, b), Math.abs));
        const s = Math.fround(amax / 448);
        expect(Math.max(...Array.from(got.slice(a, b), Math.abs))).toBeCloseTo(amax, 6);
        for (let i = a; i < b; i++)
          expect(got[i]).toBe(Math.fround(roundArray(Float32Array.of(Math.fround(row[i]! / s)), 'fp8_e4m3')[0]! * s));
      }
      expect(Array.from(got.slice(L))).toEqual(Array.from(roundArray(row.slice(L), 'bfloat16')));
      rt.tf.dispose([rows, out]);
    });
  });
});
