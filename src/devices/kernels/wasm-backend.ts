import type * as tfc from '@tensorflow/tfjs-core';

/**
 * The parts of tfjs-backend-wasm 4.22's BackendWasm that mla-diff uses (the package exports no
 * type): kernels write their outputs into the heap through them, and the runtime watches its size.
 */
export interface WasmBackend {
  makeOutput(shape: number[], dtype: tfc.DataType): tfc.TensorInfo;
  typedArrayFromHeap(info: tfc.TensorInfo): Float32Array | Int32Array | Uint8Array;
  wasm: { HEAPU8: Uint8Array };
}

/** tf.backend() as the wasm backend: the one place it is cast. Call it with wasm the backend. */
export function wasmBackend(tf: typeof tfc): WasmBackend {
  return asWasm(tf.backend());
}

/** A kernel's backend argument (KernelFunc's args.backend) as the wasm backend. */
export function asWasm(backend: object): WasmBackend {
  return backend as unknown as WasmBackend;
}
