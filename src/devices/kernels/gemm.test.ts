import * as tf from '@tensorflow/tfjs-core';
import { thrownCode } from '../../test-utils/errors';
import { testRuntime } from '../../test-utils/runtime';
import type { GemmLimits } from './gemm-plan';
import { MIN_GEMM_WORKGROUPS } from './gemm-tiles';
import { gemm, gemmProgram, planGemm } from './gemm';
import type { GemmTiles } from './gemm-wgsl';
import {
  DEFAULT_GEMM_TILES,
  FALLBACK_GEMM_TILES,
  MID_GEMM_TILES,
  gemmShaderKey,
  gemmThreads,
  gemmTileBytes,
  gemmTilesProblem,
} from './gemm-wgsl';

/**
 * The GEMM's checks, tile plan, shader key and generated WGSL, without a GPU (Dawn cannot load
 * under jest). The kernel's numbers against tf.matMul run in test/e2e/gemm.test.ts on webgpu.
 */

// WebGPU's default limits, with the lavapipe binding size (128 MiB).
const LIMITS: GemmLimits = {
  maxStorageBufferBindingSize: 2 ** 27,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupsPerDimension: 65535,
};

const op = (shape: number[], dtype: tf.DataType = 'float32') => ({ shape, dtype });

beforeAll(async () => {
  await testRuntime('cpu'); // tfjs-core's one engine: `tf` below runs on it
});

describe('planGemm', () => {
  it('plans a projection [T,in]·[in,out], vec4 where K and N allow it', () => {
    expect(planGemm(op([2048, 6144]), op([6144, 2048]), LIMITS)).toEqual({
      batch: 1,
      M: 2048,
      N: 2048,
      K: 6144,
      broadcastB: true,
      tiles: DEFAULT_GEMM_TILES,
      vec: { a: true, b: true },
      dispatch: [16, 32, 1],
      strides: { lda: 6144, aBatch: 2048 * 6144, aOff: 0, ldb: 2048, bBatch: 0, ldc: 2048, cBatch: 2048 * 2048 },
      outputShape: [2048, 2048],
    });
    expect(planGemm(op([1, 3]), op([3, 5]), LIMITS)).toMatchObject({ M: 1, N: 5, K: 3, vec: { a: false, b: false }, dispatch: [1, 1, 1] });
  });

  it('plans batched products: per-entry b, or one b shared by every entry', () => {
    expect(planGemm(op([4, 33, 64]), op([4, 64, 20]), LIMITS)).toMatchObject({
      batch: 4,
      broadcastB: false,
      dispatch: [1, 1, 4],
      strides: { bBatch: 64 * 20, cBatch: 33 * 20 },
    });
    expect(planGemm(op([4, 33, 64]), op([1, 64, 20]), LIMITS)).toMatchObject({ batch: 4, broadcastB: true });
    expect(planGemm(op([4, 33, 64]), op([64, 20]), LIMITS)).toMatchObject({ batch: 4, broadcastB: true });
  });

  it(
    `takes the smaller (mid) tiles for products of fewer than ${MIN_GEMM_WORKGROUPS} workgroups ` + "(kv_a_proj's 576 columns, few tokens)",
    () => {
      expect(planGemm(op([2048, 6144]), op([6144, 576]), LIMITS)).toMatchObject({ tiles: MID_GEMM_TILES, dispatch: [9, 32, 1] });
      expect(planGemm(op([512, 6144]), op([6144, 576]), LIMITS)).toMatchObject({ tiles: MID_GEMM_TILES, dispatch: [9, 8, 1] });
      expect(planGemm(op([8, 512, 6144]), op([6144, 576]), LIMITS)).toMatchObject({ tiles: DEFAULT_GEMM_TILES, dispatch: [5, 8, 8] });
      expect(planGemm(op([1, 3]), op([3, 5]), LIMITS).tiles).toEqual(MID_GEMM_TILES);
    },
  );

  it('falls back to smaller tiles where the default does not fit the device', () => {
    const big = [op([4096, 4096]), op([4096, 4096])] as const;
    expect(planGemm(...big, LIMITS).tiles).toEqual(DEFAULT_GEMM_TILES);
    expect(planGemm(...big, { ...LIMITS, maxComputeWorkgroupStorageSize: 8192 }).tiles).toEqual(FALLBACK_GEMM_TILES);
  });

  it.each([
    ['a of rank 1', [8], [8, 4], undefined],
    ['b of rank 4', [2, 8, 8], [1, 2, 8, 4], undefined],
    ['2-D a with 3-D b', [8, 8], [2, 8, 4], undefined],
    ['K mismatch', [8, 8], [7, 4], undefined],
    ['b batch neither Bt nor 1', [3, 8, 8], [2, 8, 4], undefined],
    ['tm not a multiple of 4', [8, 8], [8, 4], { bm: 96, bn: 64, bk: 8, tm: 6, tn: 8 }],
    ['bm not divisible by tm', [8, 8], [8, 4], { bm: 100, bn: 64, bk: 8, tm: 8, tn: 8 }],
    ['threads not dividing the tile loads', [8, 8], [8, 4], { bm: 64, bn: 64, bk: 8, tm: 4, tn: 4 }],
    ['a zero tile size', [8, 8], [8, 4], { bm: 0, bn: 64, bk: 8, tm: 8, tn: 8 }],
  ] as [string, number[], number[], GemmTiles | undefined][])('rejects %s as invalid-value', (_name, a, b, tiles) => {
    expect(thrownCode(() => planGemm(op(a), op(b), LIMITS, tiles))).toBe('invalid-value');
  });

  it('rejects a non-float32 operand as invalid-value', () => {
    expect(thrownCode(() => planGemm(op([8, 8], 'int32'), op([8, 4]), LIMITS))).toBe('invalid-value');
  });

  it.each([
    ['a over the binding limit', [2 ** 14, 2 ** 11 + 4], [2 ** 11 + 4, 4]],
    ['b over the binding limit', [4, 2 ** 14], [2 ** 14, 2 ** 11 + 4]],
    ['c over the binding limit', [2 ** 14, 4], [4, 2 ** 11 + 4]],
    ['too many row tiles', [128 * 65536, 1], [1, 1]],
    ['too many batch entries', [65536, 1, 1], [1, 1]],
  ])('rejects %s as device-limit', (_name, a, b) => {
    expect(thrownCode(() => planGemm(op(a), op(b), LIMITS))).toBe('device-limit');
  });

  it('rejects explicit tiles over the workgroup memory or thread limits as device-limit', () => {
    expect(thrownCode(() => planGemm(op([8, 8]), op([8, 4]), LIMITS, { bm: 128, bn: 128, bk: 16, tm: 8, tn: 8 }))).toBe('device-limit');
    expect(
      thrownCode(() =>
        planGemm(op([8, 8]), op([8, 4]), { ...LIMITS, maxComputeWorkgroupStorageSize: 49152 }, { bm: 128, bn: 128, bk: 16, tm: 8, tn: 4 }),
      ),
    ).toBe('device-limit');
  });
});

describe('gemm tiles and program', () => {
  it('counts threads and workgroup memory, and accepts the default and fallback tiles', () => {
    expect([gemmThreads(DEFAULT_GEMM_TILES), gemmTileBytes(DEFAULT_GEMM_TILES)]).toEqual([128, 12288]);
    expect([gemmThreads(FALLBACK_GEMM_TILES), gemmTileBytes(FALLBACK_GEMM_TILES)]).toEqual([128, 8192]);
    expect([gemmThreads(MID_GEMM_TILES), gemmTileBytes(MID_GEMM_TILES)]).toEqual([256, 16384]);
    expect([DEFAULT_GEMM_TILES, MID_GEMM_TILES, FALLBACK_GEMM_TILES].map(gemmTilesProblem)).toEqual([null, null, null]);
  });

  it('keys the shader by every compile-time constant: tiles, k-steps in pairs and the vec4 forms of A and B', () => {
    const keys = new Set([
      gemmShaderKey(DEFAULT_GEMM_TILES, { a: true, b: true }),
      gemmShaderKey(DEFAULT_GEMM_TILES, { a: false, b: true }),
      gemmShaderKey(DEFAULT_GEMM_TILES, { a: true, b: false }),
      gemmShaderKey({ ...DEFAULT_GEMM_TILES, bk: 16 }, { a: true, b: true }),
      gemmShaderKey({ ...DEFAULT_GEMM_TILES, bn: 64 }, { a: true, b: true }),
      gemmShaderKey({ ...DEFAULT_GEMM_TILES, tn: 4 }, { a: true, b: true }),
      gemmShaderKey({ ...DEFAULT_GEMM_TILES, pairs: !DEFAULT_GEMM_TILES.pairs }, { a: true, b: true }),
    ]);
    expect(keys.size).toBe(7);
  });

  it('generates a program whose private accumulators are named variables, never indexed arrays', () => {
    const p = gemmProgram(planGemm(op([3, 130, 36]), op([36, 132]), LIMITS, DEFAULT_GEMM_TILES));
    expect(p).toMatchObject({
      outputShape: [3, 130, 132],
      dispatch: [2, 3, 3],
      workgroupSize: [128, 1, 1],
      variableComponents: [4, 4],
      outputComponent: 4,
    });
    const code = p.getUserCode();
    expect(code.match(/var acc_\d_\d_\d = vec4<f32>\(0\.0\);/g)?.length).toBe(16);
    expect(code).not.toMatch(/var\s+\w+\s*:\s*array/);
    expect(code.match(/workgroupBarrier\(\)/g)?.length).toBe(3); // after the first tile's store, and one per k-step of a pair
    expect(
      gemmProgram(planGemm(op([3, 130, 36]), op([36, 132]), LIMITS, { ...DEFAULT_GEMM_TILES, pairs: false }))
        .getUserCode()
        .match(/workgroupBarrier\(\)/g)?.length,
    ).toBe(2);
    const scalar = gemmProgram(planGemm(op([1, 3]), op([3, 5]), LIMITS));
    expect([scalar.variableComponents, scalar.outputComponent, scalar.outputShape]).toEqual([[1, 1], 1, [1, 5]]);
  });

  it('runs only on webgpu (device-unavailable elsewhere), leaking nothing', () => {
    const before = tf.memory().numTensors;
    const [a, b] = [tf.zeros([2, 3]) as tf.Tensor2D, tf.zeros([3, 4]) as tf.Tensor2D]; // [M,K], [K,N]
    expect(thrownCode(() => gemm(tf, a, b))).toBe('device-unavailable');
    tf.dispose([a, b]);
    expect(tf.memory().numTensors).toBe(before);
  });
});
