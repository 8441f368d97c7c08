/**
 * Host values to the GPU without a new buffer per upload. tfjs-backend-webgpu 4.22's uploadToGPU
 * creates a buffer for every tensor made from host values (the storage buffer mapped at creation,
 * or, when the pool has one, a staging buffer it then destroys): on the H200's host each creation
 * took ~0.25 ms, and a step with every stage recorded made 4–8 of them (index tensors of the paged
 * cache, causal key counts, scalar operands; a V8 profile of the step's encoding). Here such a tensor takes
 * a storage buffer from tfjs's pool and queue.writeBuffer fills it. That is ordered correctly: the
 * pool holds no buffer a recorded but unsubmitted command still uses (tfjs returns those at submit),
 * and the write lands before every command submitted after it, so before any that reads the tensor
 * (tfjs's uniforms take the same path). Past `maxBytes` tfjs's own upload runs, as for every dtype
 * other than float32, int32 and bool.
 */

/** The parts of tfjs-backend-webgpu's backend the override reads and writes. */
interface TensorData {
  dtype: string;
  shape: number[];
  values: ArrayLike<number> | null;
  resource: unknown;
}
export interface UploadingBackend {
  tensorMap: { get(dataId: object): TensorData | undefined };
  bufferManager: { acquireBuffer(size: number, usage: number): unknown };
  queue: { writeBuffer(buffer: unknown, offset: number, data: ArrayBufferView): void };
  uploadToGPU(dataId: object): void;
}

/** GPUBufferUsage STORAGE | COPY_SRC | COPY_DST, as tfjs allocates tensor buffers. */
const TENSOR_USAGE = 0x0080 | 0x0004 | 0x0008;

/** Replaces backend.uploadToGPU (test/e2e/checks/upload-check.mjs checks it on the device). */
export function pooledUploads(backend: UploadingBackend, maxBytes = 1 << 20): void {
  const tfjsUpload = backend.uploadToGPU.bind(backend);
  backend.uploadToGPU = (dataId: object) => {
    const d = backend.tensorMap.get(dataId);
    const n = d?.values?.length ?? 0;
    if (!d || d.resource != null || !d.values || n === 0 || 4 * n > maxBytes || !['float32', 'int32', 'bool'].includes(d.dtype)) {
      tfjsUpload(dataId);
      return;
    }
    const v = d.values;
    // bool as int32, as tfjs stores it
    const data =
      d.dtype === 'float32' ? (v instanceof Float32Array ? v : Float32Array.from(v)) : v instanceof Int32Array ? v : Int32Array.from(v);
    const buffer = backend.bufferManager.acquireBuffer(4 * n, TENSOR_USAGE);
    backend.queue.writeBuffer(buffer, 0, data);
    d.values = null; // once uploaded, the values live on the GPU only (as tfjs does)
    d.resource = buffer;
  };
}
