import type * as tfc from '@tensorflow/tfjs-core';
import type { KernelOptions } from './backend';
import type { TensorProbe } from '../core/probes/probe';
import type { Runtime } from '../devices/runtime';
import type { DevicePath, StageName } from '../trace/stages';
import type { StorageDtype } from '../core/precision/formats';
import { FORMATS, overflowPoint, unitRoundoff } from '../core/precision/formats';
import type { PrecisionSpec, RoundPoint } from '../core/precision/plan';
import { FP32_PRECISION, pathPoints } from '../core/precision/plan';

/** The smallest normal float32: vLLM's floor on an fp8_ds_mla tile scale. */
const FLT_MIN = 2 ** -126;

/** Rounds a float32 tensor to a storage dtype on the device (Runtime.round). */
export type RoundFn = (x: tfc.Tensor, dtype: StorageDtype) => tfc.Tensor;

/**
 * One path's rounding, bound to a device: `at(point, x)` stores x in the model dtype where the
 * engine's kernel does (else returns x), `cacheRows` encodes latent rows the way the KV cache
 * stores them. With a probe that wants the stage, values that left the format's range are
 * counted as the stage's `overflow` (fp16/bf16 → ±inf) or `saturated` (fp8 → ±448) check.
 */
export class Rounding {
  readonly points: ReadonlySet<RoundPoint>;

  constructor(
    private readonly tf: typeof tfc,
    private readonly round: RoundFn,
    readonly spec: PrecisionSpec,
    path: DevicePath,
  ) {
    this.points = pathPoints(spec, path);
  }

  /** x as the path keeps it at `point`; `stage` (default: the point) is where overflow is counted. */
  at<X extends tfc.Tensor>(point: RoundPoint, x: X, probe?: TensorProbe, stage?: StageName, chunk?: number): X {
    const dtype = this.narrowAt(point);
    if (!dtype) return x;
    const where = stage ?? (point as StageName);
    if (probe?.wants(where)) probe.check(where, 'overflow', this.pastRange(x, dtype), chunk);
    return this.round(x, dtype) as X;
  }

  /** The dtype the path stores `point` in, when that is narrower than float32. */
  private narrowAt(point: RoundPoint): StorageDtype | null {
    return this.points.has(point) && this.spec.dtype !== 'float32' ? this.spec.dtype : null;
  }

  /** x stored in `dtype` whatever the path's points say (a planted fault's wrong dtype), its overflow counted at `stage`. */
  as<X extends tfc.Tensor>(x: X, dtype: StorageDtype, probe: TensorProbe, stage: StageName, chunk?: number): X {
    if (probe.wants(stage)) probe.check(stage, 'overflow', this.pastRange(x, dtype), chunk);
    return this.round(x, dtype) as X;
  }

  /** Relative slack an invariant needs at `point`: the unit roundoff where the value is stored narrower, else 0. */
  slack(point: RoundPoint): number {
    const dtype = this.narrowAt(point);
    return dtype ? unitRoundoff(dtype) : 0;
  }

  /** Latent rows [n, L+R] as the cache stores and hands them back (dequantized to float32). */
  cacheRows(rows: tfc.Tensor2D, L: number, probe?: TensorProbe): tfc.Tensor2D {
    if (this.spec.kvCache === 'auto' && this.spec.dtype === 'float32') return rows;
    return this.tf.tidy(() => this.encode(rows, L, probe));
  }

  private encode(rows: tfc.Tensor2D, L: number, probe?: TensorProbe): tfc.Tensor2D {
    const { tf } = this;
    // cacheRows returned float32 rows as they are
    if (this.spec.kvCache === 'auto') return this.round(rows, this.spec.dtype as StorageDtype) as tfc.Tensor2D;
    const scale = this.spec.cacheScale;
    if (scale.kind === 'per-tensor') {
      const x = tf.div(rows, scale.k_scale); // [n,L+R]
      if (probe?.wants('kv_cache')) probe.check('kv_cache', 'saturated', this.pastRange(x, 'fp8_e4m3'));
      return tf.mul(this.round(x, 'fp8_e4m3'), scale.k_scale) as tfc.Tensor2D; // [n,L+R]
    }
    // fp8_ds_mla: kv_c_normed in tiles with scale amax/448 each (never past the range); k_pe in the model dtype.
    const n = rows.shape[0];
    const tiles = tf.reshape(tf.slice(rows, [0, 0], [n, L]), [n, L / scale.tile, scale.tile]); // [n,L/tile,tile]
    // [n,L/tile,1]: vLLM's max(amax/448, FLT_MIN)
    const s = tf.maximum(tf.div(tf.max(tf.abs(tiles), -1, true), FORMATS.fp8_e4m3.max), FLT_MIN);
    const nope = tf.reshape(tf.mul(this.round(tf.div(tiles, s), 'fp8_e4m3'), s), [n, L]); // [n,L]
    const pe = tf.slice(rows, [0, L], [n, rows.shape[1] - L]); // [n,R]
    const peKept = this.spec.dtype === 'float32' ? pe : this.round(pe, this.spec.dtype);
    return tf.concat([nope, peKept], -1) as tfc.Tensor2D; // [n,L+R]
  }

  /** Finite values of x that round past the largest finite value of `dtype`. */
  private pastRange(x: tfc.Tensor, dtype: StorageDtype): tfc.Scalar {
    const { tf } = this;
    const { at, inclusive } = overflowPoint(dtype);
    return tf.tidy(() => {
      const a = tf.abs(x);
      const past = inclusive ? tf.greaterEqual(a, at) : tf.greater(a, at);
      return tf.sum(tf.cast(tf.logicalAnd(past, tf.isFinite(x)), 'int32'));
    });
  }
}

/** A rounding that never rounds: float32 everywhere, cache included. */
export const fp32Rounding = (tf: typeof tfc, path: DevicePath): Rounding => new Rounding(tf, (x) => x, FP32_PRECISION, path);

/** A device path's rounding for a schedule's kernels, bound to the runtime's exact rounding. */
export const pathRounding = (rt: Runtime, kernels: KernelOptions, path: DevicePath): Rounding =>
  new Rounding(rt.tf, (x, d) => rt.round(x, d), kernels.precision ?? FP32_PRECISION, path);
