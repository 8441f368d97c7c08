import type { MlaConfig } from '../model/config';
import type { NormalGrid } from './grid';
import { fillNormal, streamKey } from './normal';
import { fillThreads, fillWorkerEntry, parallelFill } from './parallel-fill';
import type { LayerTensor, Layout, LinearName, NormName, Range, WeightOrigin, WeightSource } from './layer';
import { linearShape, normLength } from './layer';

/** Standard deviation of token-embedding entries (Hugging Face's initializer_range). */
export const EMBEDDING_STD = 0.02;
/** Norm weights are 1 + NORM_JITTER·n: close to one, not exactly one, so a skipped weight shows. */
export const NORM_JITTER = 0.05;

/**
 * Deterministic weights from a seed with real shapes and realistic scales: every projection
 * has RMS 1/sqrt(fan_in), norm weights ≈ 1. Any block can be regenerated bit-identically.
 */
export class SyntheticWeights implements WeightSource {
  readonly label: string;

  /**
   * `gain` multiplies named tensors (e.g. a norm weight in the hundreds, as outlier layers have), to drive activations to a dtype's range.
   */
  constructor(
    readonly config: MlaConfig,
    readonly seed: number,
    private readonly gain: Partial<Record<LayerTensor, number>> = {},
  ) {
    const g = Object.entries(gain)
      .map(([k, v]) => `${k}×${v}`)
      .join(', ');
    this.label = `synthetic(seed=${seed}${g ? `, ${g}` : ''})`;
  }

  origin(name: LayerTensor): WeightOrigin {
    return { tensors: [`${name} (seed ${this.seed})`], dtype: 'F32' };
  }

  errorBound(): null {
    return null;
  }

  embeddingOrigin(): WeightOrigin {
    return { tensors: [`embed_tokens (seed ${this.seed})`], dtype: 'F32' };
  }

  embeddingBound(): null {
    return null;
  }

  norm(name: NormName): Float32Array {
    const n = normLength(this.config, name);
    const out = new Float32Array(n);
    fillNormal(out, 0, 1, n, streamKey(this.seed, name), 0, 1, NORM_JITTER, 1);
    const g = this.gain[name];
    if (g !== undefined) for (let i = 0; i < n; i++) out[i] = out[i]! * g;
    return out;
  }

  block(name: LinearName, rows: Range, cols: Range, layout: Layout, dst: Float32Array): void {
    const [, fanIn] = linearShape(this.config, name);
    const key = streamKey(this.seed, name);
    const scale = (this.gain[name] ?? 1) / Math.sqrt(fanIn);
    const [r0, r1] = rows;
    const [c0, c1] = cols;
    const nr = r1 - r0;
    const nc = c1 - c0;
    if (dst.length < nr * nc) throw new RangeError(`block ${name}: dst holds ${dst.length} < ${nr * nc}`);
    parallelFill(syntheticGrid(key, rows, cols, layout, fanIn, scale), dst, fillThreads(nr * nc), fillWorkerEntry());
  }

  embeddings(ids: readonly number[]): Float32Array {
    const H = this.config.hidden_size;
    const key = streamKey(this.seed, 'embed_tokens');
    const out = new Float32Array(ids.length * H);
    ids.forEach((id, t) => fillNormal(out, t * H, 1, H, key, id * H, 1, EMBEDDING_STD, 0));
    return out;
  }
}

/**
 * W[rows, cols] of a [·, fanIn] weight stream as a grid: in 'out_in' one line per row, in 'in_out' one per column
 * (element (r, c) of the weight is normal(key, r·fanIn + c) either way).
 */
export function syntheticGrid(key: number, rows: Range, cols: Range, layout: Layout, fanIn: number, scale: number): NormalGrid {
  const [r0, r1] = rows;
  const [c0, c1] = cols;
  const base = r0 * fanIn + c0;
  return layout === 'out_in'
    ? { key, base, lines: r1 - r0, len: c1 - c0, lineStride: fanIn, stride: 1, scale, offset: 0 }
    : { key, base, lines: c1 - c0, len: r1 - r0, lineStride: 1, stride: fanIn, scale, offset: 0 };
}
