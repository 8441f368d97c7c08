import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import { roundInto } from '../core/precision/formats';
import { tiledAttention } from './kernels/tiled-attention';
import type { Runtime } from './runtime';
import { installZeroCopySlice } from './kernels/wasm-slice';
import type { BlasRequest, HostBlas } from './kernels/host-blas';
import { loadHostBlas, noBlasHint } from './kernels/host-blas';
import { installBlasMatMul } from './kernels/wasm-blas';
import { wasmBackend } from './kernels/wasm-backend';

/**
 * Recorders keep stage values in the heap until it has grown past this, then copy them out: the
 * copies into fresh host memory are not free (12 s of a 64-head T = 2048 run's 56 s on this
 * project's 2-core VM, by a CPU profile), so runs that fit the heap do not pay them.
 */
const OFFLOAD_FROM_BYTES = 1.5 * 2 ** 30;

/**
 * The device line: the BLAS the products go through, else XNNPACK and, unless MLA_DIFF_BLAS=off chose it, what to
 * install (the line run prints above each table).
 */
export function wasmDescription(blas: HostBlas | null, request: BlasRequest, platform: NodeJS.Platform = process.platform): string {
  if (blas) return `wasm: tfjs-backend-wasm on the CPU, products through ${blas.description}`;
  const own = 'wasm: tfjs-backend-wasm (XNNPACK, SIMD) on the CPU';
  return request.kind === 'off' ? own : `${own}; ${noBlasHint(platform)}`;
}

/**
 * tfjs-backend-wasm (XNNPACK, SIMD, one thread in Node), its matrix products through the host's
 * BLAS where one loads (host-blas.ts; MLA_DIFF_BLAS=off keeps XNNPACK's). Weights are generated
 * straight into the wasm heap: a second copy of 660 MB of GLM-5 weights would cost seconds of
 * page faults.
 */
export async function createWasmRuntime(reason: string, blasRequest: BlasRequest = { kind: 'auto' }): Promise<Runtime> {
  const { blas, why } = loadHostBlas(blasRequest); // before the backend: a bad MLA_DIFF_BLAS path stops here
  require('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend('wasm'))) {
    throw new MlaDiffError('device-unavailable', 'the wasm backend failed to initialise', { field: '--device' }, 'try --device cpu');
  }
  await tf.ready();
  installZeroCopySlice();
  installBlasMatMul(blas);
  const batched = blas ? 'native' : 'per-batch';
  const backend = wasmBackend(tf);
  const floats = (t: tf.TensorInfo) => backend.typedArrayFromHeap(t) as Float32Array; // of float32 tensors only
  return {
    tf,
    device: {
      name: 'wasm',
      backend: tf.getBackend(),
      description: wasmDescription(blas, blasRequest),
      software: false,
      reason: `${reason}; matrix products: ${blas ? why : `XNNPACK (${why})`}`,
    },
    maxTensorBytes: 2 ** 31 - 1,
    retainOnHost: () => backend.wasm.HEAPU8.byteLength > OFFLOAD_FROM_BYTES,
    // BLAS: x·Wᵀ in one sgemm, batches in place. Else: tfjs-wasm sends a matMul to XNNPACK only
    // without transposes, and XNNPACK repacks its right operand (~19 ns/element for a GLM-5 weight,
    // strided); its fallback loop runs ~1.5 ns/MAC. (W·xᵀ)ᵀ with W as [out, in] packs only xᵀ and
    // streams W: 5-8× faster for prompt-sized T.
    linearPlan: () => (blas ? { layout: 'out_in', product: 'direct', batched } : { layout: 'out_in', product: 'swapped', batched }),
    makeFilled(shape, fill) {
      const info = backend.makeOutput(shape, 'float32');
      fill(floats(info));
      return tf.engine().makeTensorFromTensorInfo(info);
    },
    hostView: (t) => (t.dtype === 'float32' ? floats(t) : null),
    // Attention in query blocks (no [N,T,S] score tensor), as the paths use it when no probe records the scores.
    attention: (req) =>
      tiledAttention(
        tf,
        { q: req.q, k: req.k, v: req.v, vDim: req.e, scale: req.scale, mask: req.mask, emptyLse: req.emptyLse },
        { batched },
      ),
    // Rounded from the wasm heap straight into a new heap tensor: no host copy either way.
    round(x, dtype) {
      const info = backend.makeOutput(x.shape, 'float32');
      roundInto(floats(x), floats(info), dtype);
      return tf.engine().makeTensorFromTensorInfo(info);
    },
  };
}
