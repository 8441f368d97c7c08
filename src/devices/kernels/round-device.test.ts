import type { Runtime } from '../runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { bitMismatches, edgeValues, randomValues } from '../../core/precision/edge-values';
import type { StorageDtype } from '../../core/precision/formats';
import { STORAGE_DTYPES } from '../../core/precision/formats';
import { buildOracle, oracleRoundArray } from '../../core/precision/oracle';

/** Runtime.round of `input` (as `shape`) inside tf.tidy, read back; asserts no tensor is left behind. */
async function roundOn(rt: Runtime, input: Float32Array, shape: number[], dtype: StorageDtype): Promise<Float32Array> {
  const x = rt.tf.tensor(input, shape, 'float32');
  const got = await expectNoLeak(rt, async () => {
    const y = rt.tf.tidy(() => rt.round(x, dtype));
    const values = (await y.data()) as Float32Array;
    y.dispose();
    return values;
  });
  x.dispose();
  return got;
}

function deviceSuite(rt: () => Runtime): void {
  describe.each(STORAGE_DTYPES)('%s, bit for bit against the oracle', (dtype) => {
    const o = buildOracle(dtype);

    it('edge values (ties, subnormals, ±max, overflow point, ±inf, NaN), odd length', async () => {
      const edges = edgeValues(o);
      const input = edges.length % 2 === 1 ? edges : edges.subarray(0, edges.length - 1);
      const got = await roundOn(rt(), input, [input.length], dtype);
      expect(bitMismatches(input, got, oracleRoundArray(o, input).out)).toEqual({ count: 0, first: [] });
    });

    it('100k random float32 bit patterns, as a [250, 400] tensor', async () => {
      const input = randomValues(o, 100_000, 11);
      const got = await roundOn(rt(), input, [250, 400], dtype);
      expect(bitMismatches(input, got, oracleRoundArray(o, input).out)).toEqual({ count: 0, first: [] });
    });
  });

  it('a rounded tensor made and dropped inside tf.tidy leaves nothing behind; a scalar keeps its shape', async () => {
    const { tf } = rt();
    const x = tf.scalar(1 + 2 ** -9);
    const y = await expectNoLeak(rt(), async () => {
      tf.tidy(() => {
        rt().round(x, 'bfloat16');
      });
      const r = rt().round(x, 'bfloat16');
      const out = { shape: r.shape, value: (await r.data())[0] };
      r.dispose();
      return out;
    });
    x.dispose();
    expect(y).toEqual({ shape: [], value: 1 });
  });
}

describe.each(['cpu', 'wasm'] as const)('Runtime.round on %s', (device) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime(device);
  });
  deviceSuite(() => rt);
});

// WebGPU (the WGSL kernel of wgsl-round.ts) cannot load under jest (Dawn's `webgpu` package is ESM
// only): test/e2e/precision-rounding.test.ts runs the rounding benchmark on it in plain node instead.
