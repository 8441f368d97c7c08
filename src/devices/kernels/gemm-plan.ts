import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { GemmTiles, GemmVec } from './gemm-wgsl';
import { DEFAULT_GEMM_TILES, FALLBACK_GEMM_TILES, MID_GEMM_TILES, gemmThreads, gemmTileBytes, gemmTilesProblem } from './gemm-wgsl';
import { MIN_GEMM_WORKGROUPS } from './gemm-tiles';

/**
 * A GEMM's plan (gemm.ts, gemm-split.ts, gemm-heads.ts): the operands' strides, the tiles, the
 * dispatch, checked against the device's limits. Pure (no GPU): every error path is testable anywhere.
 */

/** The device limits the kernel checks (GPUDevice.limits). */
export interface GemmLimits {
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
  maxComputeWorkgroupsPerDimension: number;
}

/**
 * Where batch entry z's matrices lie in the flat operands (elements): A[z] row m at
 * aOff + z·aBatch + m·lda, B[z] row k at z·bBatch + k·ldb, C[z] row m at z·cBatch + m·ldc.
 */
export interface GemmStrides {
  lda: number;
  aBatch: number;
  aOff: number;
  ldb: number;
  bBatch: number;
  ldc: number;
  cBatch: number;
}

export interface GemmPlan {
  /** Batch entries (1 for a 2-D product). */
  batch: number;
  M: number;
  N: number;
  K: number;
  /** b has one batch entry shared by all (a 2-D b, or [1,K,N]). */
  broadcastB: boolean;
  tiles: GemmTiles;
  vec: GemmVec;
  dispatch: [number, number, number];
  strides: GemmStrides;
  outputShape: number[];
}

export const bad = (message: string): MlaDiffError => new MlaDiffError('invalid-value', `gemm: ${message}`, { field: 'gemm' });
export const tooBig = (message: string, hint: string): MlaDiffError =>
  new MlaDiffError('device-limit', `gemm: ${message}`, { field: 'gemm' }, hint);

const fits = (t: GemmTiles, l: GemmLimits): boolean =>
  gemmTileBytes(t) <= l.maxComputeWorkgroupStorageSize && gemmThreads(t) <= l.maxComputeInvocationsPerWorkgroup;

export type Operand = Pick<tfc.Tensor, 'shape' | 'dtype'>;

const TILE_LADDER: readonly GemmTiles[] = [DEFAULT_GEMM_TILES, MID_GEMM_TILES];

/** The largest tiles of the ladder that fit the device and give MIN_GEMM_WORKGROUPS, else the smallest that fits, else FALLBACK. */
export function chooseGemmTiles(batch: number, M: number, N: number, limits: GemmLimits): GemmTiles {
  const usable = TILE_LADDER.filter((t) => fits(t, limits));
  const wide = usable.find((t) => batch * Math.ceil(M / t.bm) * Math.ceil(N / t.bn) >= MIN_GEMM_WORKGROUPS);
  return wide ?? usable[usable.length - 1] ?? FALLBACK_GEMM_TILES;
}

/** Tiles, vec4 forms, dispatch and the limits for a product laid out by `strides`; `sizes` are the operands' element counts. */
export function finishPlan(
  p: Omit<GemmPlan, 'tiles' | 'vec' | 'dispatch'>,
  sizes: [string, number][],
  limits: GemmLimits,
  tiles?: GemmTiles,
): GemmPlan {
  const { batch, M, N, K, strides: s } = p;
  const t = tiles ?? chooseGemmTiles(batch, M, N, limits);
  const problem = gemmTilesProblem(t);
  if (problem) throw bad(problem);
  if (!fits(t, limits)) {
    const need = `${gemmTileBytes(t)} B of workgroup memory and ${gemmThreads(t)} threads`;
    const allows = `${limits.maxComputeWorkgroupStorageSize} B, ${limits.maxComputeInvocationsPerWorkgroup}`;
    throw tooBig(`tiles ${JSON.stringify(t)} need ${need}; the device allows ${allows}`, 'use smaller tiles');
  }
  const hint = 'split the product by rows of a or columns of b';
  for (const [name, n] of sizes) {
    if (4 * n > limits.maxStorageBufferBindingSize) {
      throw tooBig(`${name} needs ${4 * n} bytes, over the binding limit ${limits.maxStorageBufferBindingSize}`, hint);
    }
  }
  const dispatch: [number, number, number] = [Math.ceil(N / t.bn), Math.ceil(M / t.bm), batch];
  if (Math.max(...dispatch) > limits.maxComputeWorkgroupsPerDimension) {
    throw tooBig(`${dispatch.join('×')} workgroups exceed ${limits.maxComputeWorkgroupsPerDimension} per dimension`, hint);
  }
  const by4 = (...xs: number[]) => xs.every((x) => x % 4 === 0);
  const vec = { a: by4(K, s.lda, s.aBatch, s.aOff), b: by4(N, s.ldb, s.bBatch, s.ldc, s.cBatch) };
  return { ...p, tiles: t, vec, dispatch };
}
