import * as tf from '@tensorflow/tfjs-core';
import { asWasm } from './wasm-backend';

/** Copies the block begin..begin+size of a row-major `src` of `shape` into `dst`, run by run. */
export function copyBlock(
  src: { subarray(a: number, b: number): ArrayLike<number> },
  shape: readonly number[],
  begin: readonly number[],
  size: readonly number[],
  dst: { set(a: ArrayLike<number>, o: number): void },
): void {
  const r = shape.length;
  if (r === 0) {
    dst.set(src.subarray(0, 1), 0);
    return;
  }
  const strides = new Array<number>(r).fill(1);
  for (let i = r - 2; i >= 0; i--) strides[i] = strides[i + 1]! * shape[i + 1]!;
  const run = size[r - 1]!;
  const outer = size.slice(0, -1).reduce((a, b) => a * b, 1);
  const idx = new Array<number>(Math.max(r - 1, 0)).fill(0);
  for (let o = 0; o < outer; o++) {
    let off = begin[r - 1]!;
    for (let d = 0; d < r - 1; d++) off += (begin[d]! + idx[d]!) * strides[d]!;
    dst.set(src.subarray(off, off + run), o * run);
    for (let d = r - 2; d >= 0; d--) {
      idx[d] = idx[d]! + 1;
      if (idx[d]! < size[d]!) break;
      idx[d] = 0;
    }
  }
}

/**
 * tfjs-backend-wasm 4.22's Slice kernel reads its whole input through readSync, a copy out of the
 * wasm heap: slicing one head range out of GLM-5's 400 MB o_proj copied all of it. This kernel
 * reads the heap in place and copies only the block. Strings keep the original kernel.
 */
export function installZeroCopySlice(): void {
  swapWasmKernel('Slice', (args, original) => {
    const x = args.inputs['x'] as tf.TensorInfo;
    if (x.dtype === 'string') return original.kernelFunc(args);
    const backend = asWasm(args.backend);
    const attrs = args.attrs as unknown as { begin: number | number[]; size?: number | number[] };
    const [begin, size] = tf.slice_util.parseSliceParams(x, attrs.begin, attrs.size) as [number[], number[]];
    const out = backend.makeOutput(size, x.dtype); // may grow the heap: take views after it
    if (size.every((d) => d > 0)) copyBlock(backend.typedArrayFromHeap(x), x.shape, begin, size, backend.typedArrayFromHeap(out));
    return out;
  });
  installZeroCopyUnpack();
}

/**
 * The same for Unpack (tf.unstack), which calls the original Slice once per output: unstacking the
 * 64 heads of a [64,T,T] tensor copied the whole tensor 64 times (seconds at T=512, the largest
 * cost of the per-batch products on wasm). This one copies each entry once.
 */
function installZeroCopyUnpack(): void {
  swapWasmKernel('Unpack', (args, original) => {
    const x = args.inputs['value'] as tf.TensorInfo;
    if (x.dtype === 'string') return original.kernelFunc(args);
    const backend = asWasm(args.backend);
    const r = x.shape.length;
    const axis = ((args.attrs as unknown as { axis: number }).axis + r) % r;
    const size = x.shape.map((d, i) => (i === axis ? 1 : d));
    const outShape = x.shape.filter((_, i) => i !== axis);
    return Array.from({ length: x.shape[axis]! }, (_, k) => {
      const out = backend.makeOutput(size, x.dtype); // may grow the heap: take views after it
      if (size.every((d) => d > 0))
        copyBlock(
          backend.typedArrayFromHeap(x),
          x.shape,
          size.map((_, i) => (i === axis ? k : 0)),
          size,
          backend.typedArrayFromHeap(out),
        );
      return { ...out, shape: outShape };
    });
  });
}

const ORIGINAL = Symbol.for('mla-diff.original-kernel');
type Replacement = (args: Parameters<tf.KernelFunc>[0], original: tf.KernelConfig) => ReturnType<tf.KernelFunc>;

/**
 * Registers `kernelFunc` for a wasm kernel in place of tfjs's own (kept, for what it does not
 * handle, on the registered config), or with null puts tfjs's own back. Idempotent.
 */
export function swapWasmKernel(kernelName: string, kernelFunc: Replacement | null): void {
  const current = tf.getKernel(kernelName, 'wasm');
  if (!current) return;
  const original = (current as unknown as Record<symbol, tf.KernelConfig | undefined>)[ORIGINAL] ?? current;
  tf.unregisterKernel(kernelName, 'wasm');
  if (!kernelFunc) {
    tf.registerKernel(original);
    return;
  }
  const config: tf.KernelConfig = { kernelName, backendName: 'wasm', kernelFunc: (args) => kernelFunc(args, original) };
  (config as unknown as Record<symbol, tf.KernelConfig>)[ORIGINAL] = original;
  tf.registerKernel(config);
}
