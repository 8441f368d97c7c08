import type { LseBoundsKernel } from '../devices/kernels/lse-bounds';
import type * as tfc from '@tensorflow/tfjs-core';
import type { MlaConfig } from '../core/model/config';
import type { HeadProduct, NormRope, Product, Runtime } from '../devices/runtime';
import type { Batched } from '../devices/kernels/matmul';
import { RopeMemo } from './rope-memo';
import type { RopeAngles } from '../core/model/rope';
import type { AttentionFn } from '../devices/kernels/attention-kernel';
import type { HeadSlice, Layout, LinearName, NormName, WeightSource } from '../core/weights/layer';
import { LINEAR_NAMES, NORM_NAMES, sliceRanges, slicedConfig } from '../core/weights/layer';

/** A projection on the device, in whichever layout and product form multiply fastest there. */
export interface DeviceLinear {
  w: tfc.Tensor2D;
  layout: Layout;
  product: Product;
  /** x·w by the device's own GEMM kernel, where the runtime has one (webgpu); used for 'in_out' / 'direct'. */
  gemm?: (x: tfc.Tensor2D, w: tfc.Tensor2D) => tfc.Tensor2D;
}

/** One layer's weights on the device for one head slice; built once, shared by both paths. */
export interface DeviceLayer {
  /** Config of this slice: num_attention_heads = heads.count. */
  config: MlaConfig;
  /** Config of the whole layer the heads are cut from. */
  model: MlaConfig;
  heads: HeadSlice;
  linear: Record<LinearName, DeviceLinear>;
  norm: Record<NormName, tfc.Tensor1D>;
  /** How batched products run on this device. */
  batched: Batched;
  /** Rotary tables per positions array, shared by the paths (and the layer's head slices); disposed with the layer. */
  rope?: RopeMemo;
  /** The device's single-program RMSNorm and RoPE (Runtime.normRope), where it has them; else tfjs ops. */
  normRope?: NormRope;
  /** The device's per-head GEMM (Runtime.gemmHeads), where it has one; else head-matmul.ts transposes around tf.matMul. */
  headProduct?: HeadProduct;
  /** The device's one-program LSE bounds check (Runtime.lseBounds), where it has one; else tfjs ops. */
  lseBounds?: LseBoundsKernel;
  /**
   * Attention without the score tensor (a fused kernel or a host tiling), when the run uses one:
   * then the paths record no `logits` / `attn_probs` (the reference still does). Null: unfused.
   */
  attention: AttentionFn | null;
}

/** Bytes of the largest tensor a layer slice needs: checked against the device's binding limit. */
export function largestWeightBytes(source: WeightSource, heads: HeadSlice): { name: LinearName; bytes: number } {
  let best = { name: LINEAR_NAMES[0] as LinearName, bytes: 0 };
  for (const name of LINEAR_NAMES) {
    const { rows, cols } = sliceRanges(source.config, name, heads);
    const bytes = 4 * (rows[1] - rows[0]) * (cols[1] - cols[0]);
    if (bytes > best.bytes) best = { name, bytes };
  }
  return best;
}

/** Generates (or reads) the weights of a head slice straight into device tensors. */
export function uploadLayer(
  rt: Runtime,
  source: WeightSource,
  heads: HeadSlice,
  tokens: number,
  angles: RopeAngles = 'float64',
): DeviceLayer {
  const { layout, product, batched } = rt.linearPlan(tokens);
  const linear = {} as Record<LinearName, DeviceLinear>;
  for (const name of LINEAR_NAMES) {
    const { rows, cols } = sliceRanges(source.config, name, heads);
    const out = rows[1] - rows[0];
    const inp = cols[1] - cols[0];
    const shape = layout === 'out_in' ? [out, inp] : [inp, out];
    const w = rt.makeFilled(shape, (dst) => source.block(name, rows, cols, layout, dst)) as tfc.Tensor2D;
    linear[name] = { w, layout, product, ...(rt.gemm ? { gemm: rt.gemm } : {}) };
  }
  const norm = {} as Record<NormName, tfc.Tensor1D>;
  for (const name of NORM_NAMES) norm[name] = rt.tf.tensor1d(source.norm(name));
  return {
    config: slicedConfig(source.config, heads),
    model: source.config,
    heads,
    linear,
    norm,
    batched,
    attention: null,
    rope: new RopeMemo(rt.tf, source.config, undefined, angles),
    ...(rt.gemmHeads ? { headProduct: rt.gemmHeads } : {}),
    ...(rt.normRope ? { normRope: rt.normRope } : {}),
    ...(rt.lseBounds ? { lseBounds: rt.lseBounds } : {}),
  };
}

/**
 * A head slice of an uploaded layer, cut on the device (tensor-parallel rank r of n keeps rows of
 * q_b_proj and kv_b_proj and columns of o_proj). q_a, kv_a and the norms are shared, not copied.
 */
export function sliceLayer(rt: Runtime, parent: DeviceLayer, heads: HeadSlice): DeviceLayer {
  const { tf } = rt;
  const linear = { ...parent.linear };
  for (const name of ['q_b_proj', 'kv_b_proj', 'o_proj'] as const) {
    const want = sliceRanges(parent.model, name, heads);
    const have = sliceRanges(parent.model, name, parent.heads);
    const rows = [want.rows[0] - have.rows[0], want.rows[1] - have.rows[0]];
    const cols = [want.cols[0] - have.cols[0], want.cols[1] - have.cols[0]];
    const { w, layout } = parent.linear[name];
    const [b0, n0] = layout === 'out_in' ? [rows, cols] : [cols, rows];
    linear[name] = { ...parent.linear[name], w: tf.slice(w, [b0[0]!, n0[0]!], [b0[1]! - b0[0]!, n0[1]! - n0[0]!]) };
  }
  return { ...parent, config: slicedConfig(parent.model, heads), heads, linear };
}

/** Disposes what `slice` owns of `layer` beyond `shared` (pass the full layer when disposing a slice). */
export function disposeLayer(layer: DeviceLayer, shared?: DeviceLayer): void {
  for (const name of LINEAR_NAMES) {
    if (!shared || shared.linear[name].w !== layer.linear[name].w) layer.linear[name].w.dispose();
  }
  if (!shared) for (const name of NORM_NAMES) layer.norm[name].dispose();
  if (!shared) layer.rope?.clear();
}
