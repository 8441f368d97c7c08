import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../devices/runtime';
import { testRuntime } from '../test-utils/runtime';
import { preset } from '../core/model/presets';
import { SyntheticWeights } from '../core/weights/synthetic';
import type { DeviceLinear } from './layer';
import { disposeLayer, sliceLayer, uploadLayer } from './layer';
import { linear } from './shared';

/**
 * A runtime's own GEMM (Runtime.gemm; webgpu's register-tiled kernel) reaches the projections:
 * uploadLayer hands it to every DeviceLinear, sliceLayer keeps it, and linear() multiplies through
 * it for 'in_out' / 'direct' weights only. Here on cpu with a counting stand-in (tf.matMul); the
 * kernel itself is checked on webgpu in test/e2e/gemm.test.ts.
 */
const cfg = preset('tiny');
const source = new SyntheticWeights(cfg, 5);
const all = { start: 0, count: cfg.num_attention_heads };

let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('cpu');
});

/** The cpu runtime with a gemm that counts its calls. */
function withGemm(calls: { n: number }): Runtime {
  return {
    ...rt,
    gemm: (x, w) => {
      calls.n++;
      return tf.matMul(x, w);
    },
  };
}

describe('Runtime.gemm in the layer linears', () => {
  it('uploadLayer gives every linear the gemm; sliceLayer keeps it; linear() multiplies through it', () => {
    const before = tf.memory().numTensors;
    const calls = { n: 0 };
    const grt = withGemm(calls);
    const layer = uploadLayer(grt, source, all, 4);
    const half = sliceLayer(grt, layer, { start: 0, count: cfg.num_attention_heads / 2 });
    for (const l of [...Object.values(layer.linear), ...Object.values(half.linear)]) expect(l.gemm).toBe(grt.gemm);
    const l = half.linear.o_proj;
    const x = tf.randomNormal([3, l.w.shape[0]], 0, 1, 'float32', 7) as tf.Tensor2D; // [T,in]
    const [got, want] = [linear(x, l), tf.matMul(x, l.w)]; // [T,out]
    expect(calls.n).toBe(1);
    expect(got.shape).toEqual(want.shape);
    expect(Array.from(got.dataSync())).toEqual(Array.from(want.dataSync()));
    tf.dispose([x, got, want]);
    disposeLayer(half, layer);
    disposeLayer(layer);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('is not used for [out,in] weights or the swapped product, nor set without a runtime gemm', () => {
    const before = tf.memory().numTensors;
    const calls = { n: 0 };
    const grt = withGemm(calls);
    const w = tf.ones([6, 4]) as tf.Tensor2D; // [out,in]
    const x = tf.ones([2, 4]) as tf.Tensor2D; // [T,in]
    for (const product of ['direct', 'swapped'] as const) {
      const l: DeviceLinear = { w, layout: 'out_in', product, gemm: grt.gemm! };
      const y = tf.tidy(() => linear(x, l)); // [T,out]
      expect([y.shape, Array.from(y.dataSync())]).toEqual([[2, 6], Array(12).fill(4)]);
      y.dispose();
    }
    expect(calls.n).toBe(0);
    const plain = uploadLayer(rt, source, all, 4);
    expect(Object.values(plain.linear).some((l) => 'gemm' in l)).toBe(false);
    disposeLayer(plain);
    tf.dispose([w, x]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
