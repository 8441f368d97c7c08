import * as tf from '@tensorflow/tfjs-core';
import { asWasm } from './wasm-backend';
import type { HostBlas } from './host-blas';
import { swapWasmKernel } from './wasm-slice';

const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** The products a BatchMatMul of these operands makes, or null where its batch dims broadcast other than all-or-one. */
export function planBatchMatMul(
  aShape: readonly number[],
  bShape: readonly number[],
  transposeA: boolean,
  transposeB: boolean,
): { batchA: number; batchB: number; batch: number; m: number; n: number; k: number; outShape: number[] } | null {
  const [ra, rb] = [aShape.length, bShape.length];
  if (ra < 2 || rb < 2) return null;
  const m = transposeA ? aShape[ra - 1]! : aShape[ra - 2]!;
  const k = transposeA ? aShape[ra - 2]! : aShape[ra - 1]!;
  const kb = transposeB ? bShape[rb - 1]! : bShape[rb - 2]!;
  const n = transposeB ? bShape[rb - 2]! : bShape[rb - 1]!;
  if (k !== kb) return null; // tfjs-core has already refused it; let its own kernel say so
  const [batchA, batchB] = [size(aShape.slice(0, -2)), size(bShape.slice(0, -2))];
  const outBatch = tf.broadcast_util.assertAndGetBroadcastShape(aShape.slice(0, -2), bShape.slice(0, -2));
  const batch = size(outBatch);
  if (!(batchA === batchB || batchA === 1 || batchB === 1) || batch !== Math.max(batchA, batchB)) return null;
  return { batchA, batchB, batch, m, n, k, outShape: [...outBatch, m, n] };
}

/**
 * tfjs-backend-wasm's BatchMatMul (tf.matMul) through the host BLAS: cblas_sgemm reads the
 * operands where they lie in the wasm heap and writes the output tensor in place, one call per
 * batch entry (one for all when a single right operand is shared and A is not transposed). Other
 * dtypes and broadcasts keep tfjs's kernel. null puts tfjs's own kernel back.
 */
export function installBlasMatMul(blas: HostBlas | null): void {
  swapWasmKernel(
    'BatchMatMul',
    blas &&
      ((args, original) => {
        const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
        const { transposeA, transposeB } = args.attrs as unknown as { transposeA: boolean; transposeB: boolean };
        const plan = a.dtype === 'float32' && b.dtype === 'float32' ? planBatchMatMul(a.shape, b.shape, transposeA, transposeB) : null;
        if (!plan) return original.kernelFunc(args);
        const backend = asWasm(args.backend);
        const { batchA, batchB, batch, m, n, k, outShape } = plan;
        const out = backend.makeOutput(outShape, 'float32'); // may grow the heap: take views after it
        if (m * n * batch === 0) return out;
        const [A, B, C] = [a, b, out].map((t) => backend.typedArrayFromHeap(t) as Float32Array) as [
          Float32Array,
          Float32Array,
          Float32Array,
        ];
        if (k === 0) {
          C.fill(0);
          return out;
        }
        const [lda, ldb] = [transposeA ? m : k, transposeB ? k : n];
        if (batchB === 1 && !transposeA) {
          // [batch·m, k]·[k, n]: one call
          blas.sgemm(false, transposeB, batch * m, n, k, A, lda, B, ldb, C, n);
          return out;
        }
        for (let i = 0; i < batch; i++) {
          const Ai = A.subarray((batchA === 1 ? 0 : i) * m * k);
          const Bi = B.subarray((batchB === 1 ? 0 : i) * k * n);
          blas.sgemm(transposeA, transposeB, m, n, k, Ai, lda, Bi, ldb, C.subarray(i * m * n), n);
        }
        return out;
      }),
  );
}
