import * as tf from '@tensorflow/tfjs-core';
import { loadHostBlas } from './host-blas';
import { installBlasMatMul, planBatchMatMul } from './wasm-blas';
import { createWasmRuntime } from '../wasm';
import type { Runtime } from '../runtime';

const REQUIRE = process.env['MLA_DIFF_REQUIRE_BLAS'] === '1';
const { blas } = loadHostBlas({ kind: 'auto' });

describe('planBatchMatMul', () => {
  it('reads m, n, k and the batches, with transposes and broadcasts', () => {
    expect(planBatchMatMul([512, 6144], [2048, 6144], false, true)).toEqual({
      batchA: 1,
      batchB: 1,
      batch: 1,
      m: 512,
      n: 2048,
      k: 6144,
      outShape: [512, 2048],
    });
    expect(planBatchMatMul([64, 7, 192], [64, 192, 512], false, false)).toMatchObject({
      batchA: 64,
      batchB: 64,
      batch: 64,
      m: 7,
      n: 512,
      k: 192,
    });
    expect(planBatchMatMul([64, 9, 7], [1, 9, 5], true, false)).toMatchObject({
      batchA: 64,
      batchB: 1,
      m: 7,
      n: 5,
      k: 9,
      outShape: [64, 7, 5],
    });
    expect(planBatchMatMul([2, 3, 4, 5], [5, 6], false, false)).toMatchObject({ batch: 6, outShape: [2, 3, 4, 6] });
  });
  it('leaves other broadcasts and mismatched k to tfjs', () => {
    expect(planBatchMatMul([2, 1, 4, 5], [1, 3, 5, 6], false, false)).toBeNull(); // [2,1]×[1,3]: neither side is 1 or equal
    expect(planBatchMatMul([4, 5], [6, 7], false, false)).toBeNull();
    expect(planBatchMatMul([5], [5, 6], false, false)).toBeNull();
  });
});

// Each product through the BLAS kernel against tfjs-wasm's own (XNNPACK / its loop).
const CASES: [string, number[], number[], boolean, boolean][] = [
  ['linear x·Wᵀ', [37, 96], [80, 96], false, true],
  ['plain', [5, 33], [33, 17], false, false],
  ['one row', [1, 64], [64, 3], false, false],
  ['per head', [8, 13, 24], [8, 24, 40], false, false],
  ['per head, Bᵀ', [8, 13, 24], [8, 40, 24], false, true],
  ['shared right operand, batch folded into rows', [6, 11, 16], [16, 9], false, false],
  ['shared left operand', [1, 11, 16], [4, 16, 9], false, false],
  ['Aᵀ and Bᵀ', [3, 20, 7], [3, 12, 20], true, true],
  ['Aᵀ with a shared B', [5, 20, 7], [20, 3], true, false],
  ['m = 0', [2, 0, 8], [2, 8, 5], false, false],
];

const values = (shape: number[], seed: number) => {
  const n = shape.reduce((a, b) => a * b, 1);
  return tf.tensor(
    Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.731 + seed)),
    shape,
  );
};

describe('BatchMatMul through the host BLAS (wasm)', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await createWasmRuntime('test');
  });
  afterAll(() => installBlasMatMul(blas)); // as createWasmRuntime left it

  if (REQUIRE) it('is installed (MLA_DIFF_REQUIRE_BLAS=1)', () => expect(rt.device.description).toMatch(/products through/));
  if (!blas) {
    it("without a BLAS keeps tfjs-wasm's kernels", () => {
      expect(rt.device.description).toMatch(/XNNPACK/);
      expect(rt.linearPlan(8)).toEqual({ layout: 'out_in', product: 'swapped', batched: 'per-batch' });
    });
    return;
  }

  it('plans x·Wᵀ in one product and batches natively', () => {
    expect(rt.linearPlan(8)).toEqual({ layout: 'out_in', product: 'direct', batched: 'native' });
  });

  it.each(CASES)("%s: %p·%p (Aᵀ %p, Bᵀ %p) equals tfjs-wasm's own, no leak", (_, aShape, bShape, tA, tB) => {
    const [a, b] = [values(aShape, 1), values(bShape, 2)];
    const before = tf.memory().numTensors;
    installBlasMatMul(null);
    const ref = tf.matMul(a, b, tA, tB);
    installBlasMatMul(blas);
    const got = tf.matMul(a, b, tA, tB);
    expect(got.shape).toEqual(ref.shape);
    const [g, r] = [got.dataSync(), ref.dataSync()];
    const scale = Math.max(1, ...Array.from(r, Math.abs));
    for (let i = 0; i < r.length; i++) expect(Math.abs(g[i]! - r[i]!)).toBeLessThan(2e-6 * scale * Math.sqrt(aShape.at(tA ? -2 : -1)! + 1));
    tf.dispose([got, ref]);
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([a, b]);
  });

  it("k = 0 gives zeros (tfjs-wasm's own kernel leaves the output as the heap held it)", () => {
    const [a, b] = [tf.zeros([4, 0]), tf.zeros([0, 6])];
    const out = tf.matMul(a, b);
    expect(out.shape).toEqual([4, 6]);
    expect(Array.from(out.dataSync())).toEqual(new Array(24).fill(0));
    tf.dispose([a, b, out]);
  });

  it('leaves int32 products to tfjs, which refuses them as before', () => {
    const [a, b] = [
      tf.tensor2d(
        [
          [1, 2],
          [3, 4],
        ],
        undefined,
        'int32',
      ),
      tf.tensor2d([[5], [6]], undefined, 'int32'),
    ];
    expect(() => tf.matMul(a, b)).toThrow(/not yet supported/);
    tf.dispose([a, b]);
  });
});
