import { createHash } from 'node:crypto';
import type { WeightSource } from './layer';
import type { WeightName, WeightRecord } from '../../trace';
import { LAYER_TENSORS, linearShape, normLength } from './layer';

const { sqrt, abs } = Math;

/**
 * The weight stage W: every tensor of the layer, kv_b_proj's two halves as the absorbed path
 * uses them (W_UK: its K rows, from attn_k_b in a split GGUF; W_UV: its V rows, from attn_v_b),
 * and the embedding rows of the scenario's tokens.
 */
export type { WeightName, WeightRecord } from '../../trace';
export { WEIGHT_NAMES } from '../../trace';

export interface WeightValues {
  record: WeightRecord;
  values: Float32Array;
  bound: Float32Array | null;
}

function record(
  name: WeightName,
  tensors: string[],
  dtype: string,
  shape: number[],
  v: Float32Array,
  b: Float32Array | null,
): WeightValues {
  let ss = 0;
  let mx = 0;
  let bad = 0;
  let bb = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (x - x !== 0) {
      bad++;
      continue;
    }
    ss += x * x;
    if (abs(x) > mx) mx = abs(x);
  }
  if (b) for (let i = 0; i < b.length; i++) bb += b[i]! * b[i]!;
  const checksum = createHash('sha256')
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest('hex')
    .slice(0, 16);
  return {
    record: { name, tensors, dtype, shape, norm: sqrt(ss), maxAbs: mx, nonFinite: bad, checksum, boundNorm: sqrt(bb) },
    values: v,
    bound: b,
  };
}

/** Rows [r0, r1) of a row-major [*, n] matrix, for each head's block of `per` rows starting at `off`. */
function headRows(w: Float32Array, heads: number, per: number, off: number, take: number, n: number): Float32Array {
  const out = new Float32Array(heads * take * n);
  for (let h = 0; h < heads; h++) out.set(w.subarray((h * per + off) * n, (h * per + off + take) * n), h * take * n);
  return out;
}

/** Reads every weight of the W stage from a source, with its values (for cross-source diffs). */
export function weightValues(src: WeightSource, ids: readonly number[]): WeightValues[] {
  const c = src.config;
  const out: WeightValues[] = [];
  const uniq = [...new Set(ids)].sort((a, b) => a - b);
  const emb = src.embeddings(uniq);
  const eo = src.embeddingOrigin();
  out.push(
    record(
      'embed_tokens',
      eo.tensors.map((t) => `${t} (${uniq.length} row${uniq.length === 1 ? '' : 's'})`),
      eo.dtype,
      [uniq.length, c.hidden_size],
      emb,
      src.embeddingBound(uniq),
    ),
  );
  for (const t of LAYER_TENSORS) {
    const o = src.origin(t);
    if (t === 'input_layernorm' || t === 'q_a_layernorm' || t === 'kv_a_layernorm') {
      out.push(record(t, o.tensors, o.dtype, [normLength(c, t)], src.norm(t), src.errorBound(t)));
      continue;
    }
    const [rows, cols] = linearShape(c, t);
    const v = new Float32Array(rows * cols);
    src.block(t, [0, rows], [0, cols], 'out_in', v);
    const b = src.errorBound(t);
    out.push(record(t, o.tensors, o.dtype, [rows, cols], v, b));
    if (t === 'kv_b_proj') {
      const H = c.num_attention_heads;
      const P = c.qk_nope_head_dim;
      const V = c.v_head_dim;
      const L = c.kv_lora_rank;
      const split = o.tensors.length === 2 && o.tensors[0]!.endsWith('attn_k_b.weight'); // GGUF attn_k_b + attn_v_b
      const [tk, tv] = split ? [[o.tensors[0]!], [o.tensors[1]!]] : [o.tensors, o.tensors];
      const [dk, dv] = o.dtype.includes('+') ? (o.dtype.split('+') as [string, string]) : [o.dtype, o.dtype];
      out.push(record('W_UK', tk, dk, [H * P, L], headRows(v, H, P + V, 0, P, L), b && headRows(b, H, P + V, 0, P, L)));
      out.push(record('W_UV', tv, dv, [H * V, L], headRows(v, H, P + V, P, V, L), b && headRows(b, H, P + V, P, V, L)));
    }
  }
  return out;
}
