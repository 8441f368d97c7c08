import type { HeadSlice, Layout, LinearName, Range, WeightSource } from './layer';
import { linearShape, sliceRanges, slicedConfig } from './layer';

/**
 * The weights one tensor-parallel rank holds, as a source of their own: q_b_proj and kv_b_proj keep
 * the slice's head rows, o_proj its head columns, everything else whole. Blocks are addressed in
 * the slice's coordinates. The whole layer is returned as is.
 */
export function slicedSource(source: WeightSource, heads: HeadSlice): WeightSource {
  if (heads.start === 0 && heads.count === source.config.num_attention_heads) return source;
  const config = slicedConfig(source.config, heads);
  const shift = (r: Range, by: number): Range => [r[0] + by, r[1] + by];
  return {
    label: `${source.label} heads ${heads.start}..${heads.start + heads.count - 1}`,
    config,
    origin: (name) => source.origin(name),
    errorBound: (name) => {
      const b = source.errorBound(name);
      if (!b || name === 'input_layernorm' || name === 'q_a_layernorm' || name === 'kv_a_layernorm') return b;
      return gather(b, source.config, name, heads);
    },
    norm: (name) => source.norm(name),
    block(name: LinearName, rows: Range, cols: Range, layout: Layout, dst: Float32Array) {
      const r = sliceRanges(source.config, name, heads);
      source.block(name, shift(rows, r.rows[0]), shift(cols, r.cols[0]), layout, dst);
    },
    embeddingOrigin: () => source.embeddingOrigin(),
    embeddingBound: (ids) => source.embeddingBound(ids),
    embeddings: (ids) => source.embeddings(ids),
  };
}

/** The slice's [rows, cols] block of a full [out, in] per-element bound. */
function gather(full: Float32Array, c: WeightSource['config'], name: LinearName, heads: HeadSlice): Float32Array {
  const { rows, cols } = sliceRanges(c, name, heads);
  const inp = linearShape(c, name)[1];
  const w = cols[1] - cols[0];
  const out = new Float32Array((rows[1] - rows[0]) * w);
  for (let r = rows[0]; r < rows[1]; r++) out.set(full.subarray(r * inp + cols[0], r * inp + cols[1]), (r - rows[0]) * w);
  return out;
}
