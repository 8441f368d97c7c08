import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor, Layout, LinearName, NormName, Range, WeightOrigin, WeightSource } from '../../core/weights/layer';
import { linearShape, normLength } from '../../core/weights/layer';

/** One tensor of a checkpoint layer, read lazily: `values` dequantized to float32, [out, in] or [n]. */
export interface TensorReader {
  origin: WeightOrigin;
  values(): Float32Array;
  bound(): Float32Array | null;
}

/** What a GGUF or safetensors loader hands over: readers for the layer's tensors and its embedding rows. */
export interface CheckpointLayer {
  label: string;
  /** The checkpoint file (or index / first shard) the layer was read from. */
  file: string;
  config: MlaConfig;
  tensors: Record<LayerTensor, TensorReader>;
  embeddingRows(ids: readonly number[]): Float32Array;
  embeddingOrigin: WeightOrigin;
  embeddingBound(ids: readonly number[]): Float32Array | null;
}

/** Rows of a [vocab, width] table for these ids, one read per row: never the whole table. */
export function gatherRows(ids: readonly number[], width: number, row: (id: number) => Float32Array): Float32Array {
  const out = new Float32Array(ids.length * width);
  ids.forEach((id, i) => out.set(row(id), i * width));
  return out;
}

/** Throws `nan-weights` naming the tensor when a dequantized weight holds NaN or ±inf. */
export function checkFinite(values: Float32Array, file: string, tensor: string): Float32Array {
  let bad = 0;
  let first = -1;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (x - x !== 0) {
      bad++;
      if (first < 0) first = i;
    }
  }
  if (bad) {
    throw new MlaDiffError(
      'nan-weights',
      `${bad} of ${values.length} values are NaN or infinite (first at flat index ${first})`,
      { file, field: tensor },
      'the checkpoint is corrupt, or its scales (d, weight_scale_inv) overflowed; re-download or re-convert it',
    );
  }
  return values;
}

/**
 * A checkpoint layer as a WeightSource. Each tensor is dequantized once, on first use, and kept
 * as float32 so head slices and layouts are cut from it without re-reading the file.
 */
export class CheckpointWeights implements WeightSource {
  readonly label: string;
  readonly config: MlaConfig;
  private readonly cache = new Map<LayerTensor, Float32Array>();

  constructor(private readonly layer: CheckpointLayer) {
    this.label = layer.label;
    this.config = layer.config;
  }

  origin(name: LayerTensor): WeightOrigin {
    return this.layer.tensors[name].origin;
  }

  errorBound(name: LayerTensor): Float32Array | null {
    return this.layer.tensors[name].bound();
  }

  private values(name: LayerTensor): Float32Array {
    let v = this.cache.get(name);
    if (!v) {
      v = checkFinite(this.layer.tensors[name].values(), this.layer.file, this.layer.tensors[name].origin.tensors.join(' + '));
      this.cache.set(name, v);
    }
    return v;
  }

  norm(name: NormName): Float32Array {
    return this.values(name).slice(0, normLength(this.config, name));
  }

  block(name: LinearName, rows: Range, cols: Range, layout: Layout, dst: Float32Array): void {
    const w = this.values(name);
    const [, fanIn] = linearShape(this.config, name);
    const [r0, r1] = rows;
    const [c0, c1] = cols;
    const nr = r1 - r0;
    const nc = c1 - c0;
    if (layout === 'out_in') {
      for (let r = 0; r < nr; r++) dst.set(w.subarray((r0 + r) * fanIn + c0, (r0 + r) * fanIn + c1), r * nc);
    } else {
      for (let r = 0; r < nr; r++) {
        const src = (r0 + r) * fanIn + c0;
        for (let c = 0; c < nc; c++) dst[c * nr + r] = w[src + c]!;
      }
    }
  }

  embeddingOrigin(): WeightOrigin {
    return this.layer.embeddingOrigin;
  }

  embeddingBound(ids: readonly number[]): Float32Array | null {
    return this.layer.embeddingBound(ids);
  }

  /** The rows of `ids`, each checked as the weights are: a NaN row would otherwise surface as a divergence. */
  embeddings(ids: readonly number[]): Float32Array {
    const rows = this.layer.embeddingRows(ids);
    const H = this.config.hidden_size;
    ids.forEach((id, t) => {
      for (let i = t * H; i < (t + 1) * H; i++) {
        const x = rows[i]!;
        if (x - x !== 0) {
          throw new MlaDiffError(
            'nan-weights',
            `the embedding row of token id ${id} holds ${x} at column ${i - t * H}`,
            { file: this.layer.file, field: `${this.layer.embeddingOrigin.tensors[0] ?? 'embed_tokens'}[${id}]` },
            'the checkpoint is corrupt, or its scales overflowed; re-download or re-convert it',
          );
        }
      }
    });
    return rows;
  }
}
