import { join } from 'node:path';
import { openSafetensors, readTensorF32, readWeightF32, weightBoundF32, writeSafetensors } from './index';
import { expectCode, tempDir, writeRaw } from './test-utils/files';
import { testMatrix } from './test-utils/matrix';

const t = tempDir();
afterAll(t.cleanup);

function maxOverBound(x: Float32Array, got: Float32Array, bound: Float32Array): number {
  let bad = 0;
  for (let i = 0; i < x.length; i++) if (!(Math.abs(x[i]! - got[i]!) <= bound[i]!)) bad++;
  return bad;
}

describe('FP8 block scales', () => {
  it('a scale grid stored transposed is caught by its shape → tensor-shape', () => {
    // W [3, 2] F8_E4M3 with 1×2 blocks needs a [3, 1] grid; the file holds it transposed, [1, 3].
    const header = {
      w: { dtype: 'F8_E4M3', shape: [3, 2], data_offsets: [0, 6] },
      w_scale_inv: { dtype: 'F32', shape: [1, 3], data_offsets: [6, 18] },
    };
    const p = writeRaw(t.dir, 'transposed.safetensors', header, new Array(18).fill(0));
    const m = openSafetensors(p);
    const e = expectCode(() => readWeightF32(m, 'w', [1, 2]), 'tensor-shape');
    expect(e.where.field).toBe('w_scale_inv');
    expect(e.hint).toContain('47115');
    expectCode(() => weightBoundF32(m, 'w', [1, 2]), 'tensor-shape');
    expectCode(() => readWeightF32(m, 'w'), 'tensor-shape'); // 128×128 blocks: grid [1, 1]
  });

  it('multiplies by BF16 and E8M0 scales, block (i/bm, j/bn)', () => {
    // W [2, 3] = E4M3 [[1, 1, 1], [1, -3, 2^-9]] with 1×2 blocks → grid [2, 2]: blocks cols {0,1} and {2}.
    const q = [0x38, 0x38, 0x38, 0x38, 0xc4, 0x01];
    // BF16 scales [[2, 0.5], [-1, 4]]: 0x4000, 0x3F00, 0xBF80, 0x4080.
    const bf = [0x00, 0x40, 0x00, 0x3f, 0x80, 0xbf, 0x80, 0x40];
    const header = {
      w: { dtype: 'F8_E4M3', shape: [2, 3], data_offsets: [0, 6] },
      w_scale_inv: { dtype: 'BF16', shape: [2, 2], data_offsets: [6, 14] },
      v: { dtype: 'F8_E4M3', shape: [2, 3], data_offsets: [14, 20] },
      v_scale_inv: { dtype: 'F8_E8M0', shape: [1, 1], data_offsets: [20, 21] }, // 2^(130-127) = 8
    };
    const m = openSafetensors(writeRaw(t.dir, 'scales.safetensors', header, [...q, ...bf, ...q, 130]));
    expect([...readWeightF32(m, 'w', [1, 2])]).toEqual([2, 2, 0.5, -1, 3, 4 * 2 ** -9]);
    expect([...readWeightF32(m, 'v')]).toEqual([8, 8, 8, 8, -24, 8 * 2 ** -9]);
    expect([...readTensorF32(m, 'w')]).toEqual([1, 1, 1, 1, -3, 2 ** -9]); // no scales applied
  });

  it('other block sizes and a rank-3 weight (blocked as [prod(leading), last])', () => {
    const x = testMatrix(150, 90, 5);
    const y = testMatrix(260, 10, 6); // as [2, 130, 10]
    const p = join(t.dir, 'blocks.safetensors');
    writeSafetensors(
      p,
      [
        { name: 'x', dtype: 'F8_E4M3', shape: [150, 90], data: x },
        { name: 'y', dtype: 'F8_E4M3', shape: [2, 130, 10], data: y },
      ],
      undefined,
      [64, 32],
    );
    const m = openSafetensors(p);
    expect(m.tensors.get('x_scale_inv')!.shape).toEqual([3, 3]); // ceil(150/64), ceil(90/32)
    expect(m.tensors.get('y_scale_inv')!.shape).toEqual([5, 1]); // ceil(260/64), ceil(10/32)
    expect(maxOverBound(x, readWeightF32(m, 'x', [64, 32]), weightBoundF32(m, 'x', [64, 32]))).toBe(0);
    expect(maxOverBound(y, readWeightF32(m, 'y', [64, 32]), weightBoundF32(m, 'y', [64, 32]))).toBe(0);
    expectCode(() => readWeightF32(m, 'x'), 'tensor-shape'); // read with the default 128×128
  });
});

describe('bounds of row ranges (embedding rows)', () => {
  it.each(['F32', 'BF16', 'F16', 'F8_E4M3'] as const)('%s: the bound of rows [5, 9) is those rows of the whole bound', (dtype) => {
    const x = testMatrix(20, 48, 11);
    const p = join(t.dir, `rows-${dtype}.safetensors`);
    writeSafetensors(p, [{ name: 'e', dtype, shape: [20, 48], data: x }], undefined, [8, 16]);
    const m = openSafetensors(p);
    const whole = weightBoundF32(m, 'e', [8, 16]);
    expect(Array.from(weightBoundF32(m, 'e', [8, 16], [5, 9]))).toEqual(Array.from(whole.subarray(5 * 48, 9 * 48)));
    expectCode(() => weightBoundF32(m, 'e', [8, 16], [19, 21]), 'invalid-value');
  });
});
