import { closest } from 'fastest-levenshtein';
import { dirname } from 'node:path';
import { MlaDiffError } from '../../errors';
import { decodeTensor } from './decode';
import type { SafetensorsModel, SafetensorsTensorInfo } from './types';

const ceil = Math.ceil;

/** DeepSeek-V3 / GLM-5 FP8: quantization_config.weight_block_size. */
export const DEFAULT_BLOCK: [number, number] = [128, 128];

export const scaleInvName = (name: string): string => `${name}_scale_inv`;

/** The tensor, or 'tensor-missing' naming the nearest name in the checkpoint. */
export function tensorInfo(model: SafetensorsModel, name: string): SafetensorsTensorInfo {
  const t = model.tensors.get(name);
  if (t) return t;
  const file = model.files.length === 1 ? model.files[0] : model.files[0] && dirname(model.files[0]);
  const near = model.tensors.size > 0 ? closest(name, [...model.tensors.keys()]) : undefined;
  throw new MlaDiffError(
    'tensor-missing',
    'no such tensor in the checkpoint',
    file ? { file, field: name } : { field: name },
    near ? `the nearest name is ${near}` : 'the checkpoint has no tensors',
  );
}

/** The [M, N] matrix a weight is blocked as: rank 2 as is, rank 1 → [1, N], higher → [prod(leading dims), last]. */
export function matrixView(shape: readonly number[]): [number, number] {
  if (shape.length === 0) return [1, 1];
  const n = shape[shape.length - 1]!;
  let m = 1;
  for (let i = 0; i < shape.length - 1; i++) m *= shape[i]!;
  return [m, n];
}

/** A block size [bm, bn] of two positive integers, or invalid-value at `field` (of `file`, when it comes from one). */
export function checkBlock(block: readonly unknown[], field: string, file?: string): [number, number] {
  const [bm, bn] = block;
  if (block.length !== 2 || !Number.isSafeInteger(bm) || !Number.isSafeInteger(bn) || (bm as number) < 1 || (bn as number) < 1) {
    throw new MlaDiffError(
      'invalid-value',
      `block size ${JSON.stringify(block)?.slice(0, 80)} is not two positive integers`,
      { file, field },
      'quantization_config.weight_block_size is [128, 128] for DeepSeek-V3 and GLM-5',
    );
  }
  return [bm as number, bn as number];
}

/** Scale grid shape [ceil(M/bm), ceil(N/bn)]. */
export function scaleGrid(shape: readonly number[], block: [number, number]): [number, number] {
  const [m, n] = matrixView(shape);
  return [ceil(m / block[0]), ceil(n / block[1])];
}

export interface BlockScales {
  /** Row-major [gridRows, gridCols]. */
  scales: Float32Array;
  gridCols: number;
  block: [number, number];
}

/** `${name}_scale_inv` read and shape-checked, or undefined when the checkpoint has none. */
export function readBlockScales(model: SafetensorsModel, w: SafetensorsTensorInfo, blockSize: readonly number[]): BlockScales | undefined {
  const s = model.tensors.get(scaleInvName(w.name));
  if (!s) return undefined;
  const block = checkBlock(blockSize, s.name);
  const [gr, gc] = scaleGrid(w.shape, block);
  if (s.shape.length !== 2 || s.shape[0] !== gr || s.shape[1] !== gc) {
    const swapped = s.shape.length === 2 && s.shape[0] === gc && s.shape[1] === gr;
    throw new MlaDiffError(
      'tensor-shape',
      `is [${s.shape.join(', ')}] but ${w.name} [${w.shape.join(', ')}] with ${block[0]}×${block[1]} blocks needs [${gr}, ${gc}]`,
      { file: s.file, field: s.name },
      swapped
        ? 'the scale grid is transposed (the vLLM #47115 bug): scales are [ceil(out/128), ceil(in/128)], row-major'
        : 'check quantization_config.weight_block_size, or whether the checkpoint was re-sharded or transposed',
    );
  }
  return { scales: decodeTensor(s, ['F32', 'BF16', 'F16', 'F8_E8M0']), gridCols: gc, block };
}

/** Calls fn(i, scale) for every element index i of an [M, N] row-major matrix with its block scale. */
export function forEachBlockScale(shape: readonly number[], bs: BlockScales, fn: (i: number, scale: number) => void): void {
  const [m, n] = matrixView(shape);
  const [bm, bn] = bs.block;
  const { scales, gridCols } = bs;
  for (let r = 0; r < m; r++) {
    const g = ((r / bm) | 0) * gridCols;
    const row = r * n;
    for (let c0 = 0, gj = 0; c0 < n; c0 += bn, gj++) {
      const s = scales[g + gj]!;
      const c1 = c0 + bn < n ? c0 + bn : n;
      for (let c = c0; c < c1; c++) fn(row + c, s);
    }
  }
}
