import { decodeTensor } from './decode';
import { DEFAULT_BLOCK, forEachBlockScale, readBlockScales, tensorInfo } from './scales';
import type { SafetensorsModel } from './types';

/**
 * Reads one tensor by offset and converts it to float32: F32, F16, BF16, and F8_E4M3 WITHOUT its
 * block scales (raw E4M3 values). `rows` [r0, r1) of the first dim reads only those rows' bytes
 * (embedding rows). Other dtypes: 'unsupported-dtype'; an unknown name: 'tensor-missing'.
 */
export function readTensorF32(model: SafetensorsModel, name: string, rows?: [number, number]): Float32Array {
  return decodeTensor(tensorInfo(model, name), ['F32', 'F16', 'BF16', 'F8_E4M3'], rows);
}

/**
 * A weight as float32. For an F8_E4M3 weight W [M, N] with `${name}_scale_inv` [ceil(M/bm), ceil(N/bn)]
 * (F32, BF16, F16 or F8_E8M0): W[i][j]·scale_inv[⌊i/bm⌋][⌊j/bn⌋] — MULTIPLY, despite the name
 * (DeepSeek-V3 `weight_dequant`). A scale grid of the wrong shape (e.g. transposed) is 'tensor-shape'.
 * An FP8 weight without scales, or a weight of another dtype, reads as readTensorF32.
 */
export function readWeightF32(model: SafetensorsModel, name: string, blockSize: [number, number] = DEFAULT_BLOCK): Float32Array {
  const info = tensorInfo(model, name);
  const w = decodeTensor(info, ['F32', 'F16', 'BF16', 'F8_E4M3']);
  if (info.dtype !== 'F8_E4M3') return w;
  const bs = readBlockScales(model, info, blockSize);
  if (bs)
    forEachBlockScale(info.shape, bs, (i, s) => {
      w[i] = w[i]! * s;
    });
  return w;
}
