import type { PoolTrimmer } from './webgpu-pool';
import type { PipelineCache } from './pipeline-cache';
import type { LseBoundsKernel } from './kernels/lse-bounds';
import type { RopeStyle } from '../core/model/rope';
import type * as tfc from '@tensorflow/tfjs-core';
import type { Batched } from './kernels/matmul';
import type { StorageDtype } from '../core/precision/formats';
import type { AttentionFn } from './kernels/attention-kernel';
import type { Layout } from '../core/weights/layer';
import type { StatsKernel } from '../core/probes/stats-partials';
import type { DiffKernel } from '../core/probes/diff-partials';
import type { DeviceInfo, DeviceName } from '../trace';
import { DEVICE_NAMES } from '../trace';

/** The tfjs backends mla-diff runs on, and what ran (recorded in every report): src/trace. */
export type { AdapterInfo, DeviceInfo, DeviceName } from '../trace';
export { DEVICE_NAMES } from '../trace';
export type DeviceRequest = DeviceName | 'auto';
export const DEVICE_REQUESTS: readonly DeviceRequest[] = ['auto', ...DEVICE_NAMES];

/** RMSNorm and RoPE as single device programs (kernels/norm-rope.ts): the same results as shared.ts rmsNorm / applyRope. */
export interface NormRope {
  rmsNorm(x: tfc.Tensor, w: tfc.Tensor1D, eps: number): tfc.Tensor;
  rope(x: tfc.Tensor, cos: tfc.Tensor2D, sin: tfc.Tensor2D, style: RopeStyle): tfc.Tensor;
}

/** out[t,h,:] = x[t,h,:]·w[h] (x [T,N,K]) or x[t,:]·w[h] (x [T,K]), w [N,K,E] → [T,N,E]. */
export type HeadProduct = (x: tfc.Tensor2D | tfc.Tensor3D, w: tfc.Tensor3D) => tfc.Tensor3D;

/** A selected tfjs backend plus the few device-specific operations the paths need. */
export interface Runtime {
  readonly tf: typeof tfc;
  readonly device: DeviceInfo;
  /**
   * The device's buffer pool where the backend keeps one (webgpu: tfjs's, which never frees a size):
   * `trim` releases the sizes unused since the last trim (called as each piece ends), `bytes` counts it.
   */
  readonly pool?: PoolTrimmer;
  /**
   * Waits for the device's queue, lets the pool go back to its budget (PoolTrimmer.settle) and waits again, so that
   * the device recycles what was destroyed before the host encodes more (webgpu; a long piece between its paths).
   */
  readonly settle?: () => Promise<void>;
  /**
   * Compiled pipelines reused across runs (webgpu: pipeline-cache.ts): a run warms its scenario family's shaders
   * before making its weights (they compile meanwhile, in parallel), awaits them before its first piece, and saves
   * what it compiled once its pieces have run.
   */
  readonly pipelines?: PipelineCache;
  /** Largest single tensor in bytes this device can bind (WebGPU storage binding limit). */
  readonly maxTensorBytes: number;
  /** How weight matrices are stored and multiplied fastest here for a T-token step. */
  linearPlan(tokens: number): LinearPlan;
  /** A float32 tensor whose values `fill` writes, in place where the backend allows it. */
  makeFilled(shape: number[], fill: (dst: Float32Array) => void): tfc.Tensor;
  /**
   * Zero-copy view of a float32 tensor's values where the backend keeps them in host memory
   * (cpu, wasm), else null. Valid until the next tfjs op: read it, do not keep it.
   */
  hostView(t: tfc.Tensor): Float32Array | null;
  /**
   * x rounded to a storage dtype, as float32 holding exactly the stored values (round to nearest
   * even, subnormals kept, fp16 overflow to ±inf, fp8 e4m3 saturating): bit for bit the same on
   * every device. A new tensor, tracked like any op's output.
   */
  round(x: tfc.Tensor, dtype: StorageDtype): tfc.Tensor;
  /** Attention without the score tensor on this device (a fused kernel or a tiling), where it has one. */
  readonly attention?: AttentionFn;
  /** A fused one-pass kernel for the probes' tensor stats (TensorRecorder), where the device has one. */
  readonly stats?: StatsKernel;
  /** A fused one-pass kernel for the comparison's pair diffs (src/harness/run/diff.ts), where the device has one. */
  readonly diff?: DiffKernel;
  /**
   * Whether recorders should now copy the stage values kept for comparison out of the device's
   * memory as they are tapped (wasm: its heap stops at 4 GiB, and a 64-head T = 2048 run keeps
   * ~2.5 GB of them; copying costs page faults, so only once the heap has grown large).
   */
  readonly retainOnHost?: () => boolean;
  /** x [T,in] · w [in,out] by this device's own GEMM kernel, where it has one faster than tf.matMul (webgpu). */
  readonly gemm?: (x: tfc.Tensor2D, w: tfc.Tensor2D) => tfc.Tensor2D;
  /**
   * Per-head products x [T,N,K] (or [T,K] shared) · w [N,K,E] → [T,N,E] in one GEMM without transposes, where the device has one (webgpu).
   */
  readonly gemmHeads?: HeadProduct;
  /** RMSNorm and RoPE in one program each, where the device has them (webgpu: 15 of a pre-attention's programs fewer). */
  readonly normRope?: NormRope;
  /** The LSE bounds check in one program, where the device has it (webgpu: 10 programs and two uploads fewer per check). */
  readonly lseBounds?: LseBoundsKernel;
  /**
   * The first error the device reported (WebGPU's uncapturederror, or one its error scopes caught: out
   * of device memory, a binding over the limit), or null. Work after such an error is invalid,
   * silently: runners check it (guarded, checkDevice) rather than report numbers from it.
   */
  readonly deviceError?: () => string | null;
  /**
   * Runs f inside the device's error scopes (WebGPU: out-of-memory and validation) and returns the
   * first error they or the uncaptured handler caught, or null. A scope is synchronous with the
   * work it wraps; an uncaptured error event arrives whenever Dawn delivers it. Absent on devices
   * without such errors.
   */
  readonly scoped?: <T>(f: () => Promise<T>) => Promise<{ value: T; error: string | null }>;
}

/**
 * How y = x·Wᵀ is formed: `direct` multiplies x by W (transposing W in the product when it is
 * stored [out, in]); `swapped` forms (W·xᵀ)ᵀ, so that the large operand streams through the
 * kernel and only the small xᵀ is packed (tfjs-wasm: XNNPACK packs its right operand).
 */
export type Product = 'direct' | 'swapped';

export interface LinearPlan {
  layout: Layout;
  product: Product;
  /** How products with a batch axis or a transposed operand run (see backends/matmul.ts). */
  batched: Batched;
}

export type Log = (message: string) => void;
