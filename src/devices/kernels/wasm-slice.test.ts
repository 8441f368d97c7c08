import * as tf from '@tensorflow/tfjs-core';
import type { Runtime } from '../runtime';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { copyBlock } from './wasm-slice';

describe('zero-copy Slice kernel for tfjs-backend-wasm', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await testRuntime('wasm');
  });

  it('copyBlock copies exactly the block, run by run', () => {
    const src = Float32Array.from({ length: 2 * 3 * 4 }, (_, i) => i);
    const dst = new Float32Array(2 * 2 * 2);
    copyBlock(src, [2, 3, 4], [0, 1, 2], [2, 2, 2], dst);
    expect(Array.from(dst)).toEqual([6, 7, 10, 11, 18, 19, 22, 23]);
  });

  it.each([
    [
      [5, 7],
      [1, 2],
      [3, 4],
    ],
    [
      [4, 6, 8],
      [1, 0, 3],
      [2, 6, 5],
    ],
    [
      [3, 4, 5, 6],
      [0, 1, 2, 3],
      [3, 2, 2, 3],
    ],
    [[10], [4], [6]],
  ])('slices %p at %p size %p like the reference implementation', async (shape, begin, size) => {
    await expectNoLeak(rt, async () => {
      const n = shape.reduce((a, b) => a * b, 1);
      const values = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 3);
      const x = tf.tensor(values, shape);
      const got = tf.slice(x, begin, size);
      const want = tf.buffer(size);
      const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
      for (let o = 0; o < want.size; o++) {
        const idx = want.indexToLoc(o);
        want.values[o] = values[idx.reduce((s, v, d) => s + (v + begin[d]!) * strides[d]!, 0)]!;
      }
      expect(got.shape).toEqual(size);
      expect(Array.from(await got.data())).toEqual(Array.from(want.values));
      tf.dispose([x, got]);
    });
  });

  it.each([
    [[4, 3, 5], 0],
    [[4, 3, 5], 1],
    [[4, 3, 5], -1],
    [[2, 1], 0],
    [[3, 0, 2], 0],
  ])('unstacks %p along axis %p as tf.slice + reshape does, each entry once', async (shape, axis) => {
    await expectNoLeak(rt, async () => {
      const x = tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => i - 7),
        shape,
      );
      const parts = tf.unstack(x, axis);
      const r = shape.length;
      const ax = (axis + r) % r;
      expect(parts.length).toBe(shape[ax]);
      for (const [k, p] of parts.entries()) {
        const want = tf.tidy(() =>
          tf.squeeze(
            tf.slice(
              x,
              shape.map((_, i) => (i === ax ? k : 0)),
              shape.map((d, i) => (i === ax ? 1 : d)),
            ),
            [ax],
          ),
        );
        expect(p.shape).toEqual(want.shape);
        expect(Array.from(await p.data())).toEqual(Array.from(await want.data()));
        want.dispose();
      }
      tf.dispose([x, ...parts]);
    });
  });

  it('int32 unstack still works', async () => {
    await expectNoLeak(rt, async () => {
      const i = tf.tensor2d(
        [
          [1, 2],
          [3, 4],
        ],
        [2, 2],
        'int32',
      );
      const parts = tf.unstack(i);
      expect(await Promise.all(parts.map(async (p) => Array.from(await p.data())))).toEqual([
        [1, 2],
        [3, 4],
      ]);
      tf.dispose([i, ...parts]);
    });
  });

  it('int32 and bool slices still work', async () => {
    await expectNoLeak(rt, async () => {
      const i = tf.tensor2d(
        [
          [1, 2],
          [3, 4],
        ],
        [2, 2],
        'int32',
      );
      const b = tf.tensor1d([true, false, true], 'bool');
      const si = tf.slice(i, [1, 0], [1, 2]);
      const sb = tf.slice(b, [1], [2]);
      expect(Array.from(await si.data())).toEqual([3, 4]);
      expect(Array.from(await sb.data())).toEqual([0, 1]);
      tf.dispose([i, b, si, sb]);
    });
  });
});
