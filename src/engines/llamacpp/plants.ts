import type { GgufEntry } from '../../formats/gguf/types';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor, WeightSource } from '../../core/weights/layer';
import type { GgufPlant } from '../../trace/faults';

/**
 * Converter bugs planted in the GGUF llama.cpp loads, never in what our paths read: each is a way a
 * real conversion went wrong (gguf-and-bugs.md). Three kinds: a metadata key written wrong, a weight
 * tensor written wrong (a source wrapper), a derived tensor laid out wrong (a transform of its values).
 */
export interface PlantEffect {
  /** Metadata entries written over the true ones. */
  meta: Map<string, GgufEntry>;
  source: WeightSource;
  transform?: (name: string, values: Float32Array) => Float32Array;
  /** One line per plant: what the GGUF says. */
  notes: string[];
}

const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });
const f32 = (value: number): GgufEntry => ({ type: 'FLOAT32', value });

/** A source whose one tensor (or norm) is replaced. */
function overriding(s: WeightSource, norm: Partial<Record<LayerTensor, Float32Array>>, kvB?: (w: Float32Array) => void): WeightSource {
  return {
    ...s,
    label: `${s.label} (planted)`,
    config: s.config,
    origin: (n) => s.origin(n),
    errorBound: (n) => s.errorBound(n),
    norm: (n) => norm[n] ?? s.norm(n),
    block(name, rows, cols, layout, dst) {
      s.block(name, rows, cols, layout, dst);
      if (name === 'kv_b_proj' && kvB) kvB(dst);
    },
    embeddingOrigin: () => s.embeddingOrigin(),
    embeddingBound: (ids) => s.embeddingBound(ids),
    embeddings: (ids) => s.embeddings(ids),
  };
}

/** The rope rows of each head as the llama converter's NeoX permute leaves them: pairs (2i, 2i+1) → halves (i, i + R/2). */
function neoxPermuteRows(w: Float32Array, rowsPerHead: number, ropeStart: number, R: number, cols: number, heads: number): Float32Array {
  const out = Float32Array.from(w);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < R / 2; i++)
      for (const [from, to] of [
        [2 * i, i],
        [2 * i + 1, i + R / 2],
      ] as const) {
        const src = (h * rowsPerHead + ropeStart + from) * cols;
        out.set(w.subarray(src, src + cols), (h * rowsPerHead + ropeStart + to) * cols);
      }
  return out;
}

export function plantEffect(c: MlaConfig, arch: string, plants: readonly GgufPlant[], source: WeightSource): PlantEffect {
  const meta = new Map<string, GgufEntry>();
  const notes: string[] = [];
  const norms: Partial<Record<LayerTensor, Float32Array>> = {};
  let kvB: ((w: Float32Array) => void) | undefined;
  const transforms: ((name: string, v: Float32Array) => Float32Array)[] = [];
  const [P, R, L, V, N] = [c.qk_nope_head_dim, c.qk_rope_head_dim, c.kv_lora_rank, c.v_head_dim, c.num_attention_heads];
  const a = `${arch}.attention`;
  for (const p of plants) {
    switch (p) {
      case 'rope-freq-base':
        meta.set(`${arch}.rope.freq_base`, f32(c.rope_theta === 10_000 ? 1_000_000 : 10_000));
        notes.push(`rope.freq_base ${c.rope_theta === 10_000 ? 1_000_000 : 10_000} (true ${c.rope_theta})`);
        break;
      case 'rope-dimension-count':
        meta.set(`${arch}.rope.dimension_count`, u32(R / 2));
        notes.push(`rope.dimension_count ${R / 2} (true ${R})`);
        break;
      case 'rope-neox-permuted': {
        const D = P + R;
        transforms.push((name, v) =>
          name.endsWith('attn_q_b.weight')
            ? neoxPermuteRows(v, D, P, R, c.q_lora_rank, N)
            : name.endsWith('attn_kv_a_mqa.weight')
              ? neoxPermuteRows(v, L + R, L, R, c.hidden_size, 1)
              : v,
        );
        notes.push("q_b and kv_a's rope rows permuted for NeoX rotation (the llama converter's permute)");
        break;
      }
      case 'yarn-log-multiplier-unscaled':
        meta.set(`${arch}.rope.scaling.yarn_log_multiplier`, f32(c.rope_scaling?.mscale_all_dim ?? 1));
        notes.push(`rope.scaling.yarn_log_multiplier ${c.rope_scaling?.mscale_all_dim ?? 1} (mscale_all_dim; the converter writes 0.1·it)`);
        break;
      case 'mla-lengths-swapped':
        meta.set(`${a}.key_length_mla`, u32(V));
        meta.set(`${a}.value_length_mla`, u32(P + R));
        notes.push(`key_length_mla ${V} and value_length_mla ${P + R} swapped`);
        break;
      case 'k-b-untransposed':
        transforms.push((name, v) => (name.endsWith('attn_k_b.weight') ? transposeLast(v, N, L, P) : v));
        notes.push('attn_k_b written as W_UK [N, P, L] without the per-head transpose');
        break;
      case 'v-b-wrong-half':
        kvB = (w) => {
          const cols = L;
          for (let h = 0; h < N; h++) w.copyWithin((h * (P + V) + P) * cols, h * (P + V) * cols, h * (P + V) * cols + V * cols);
        };
        notes.push("attn_v_b taken from the first V rows of each head's kv_b block (the k half)");
        break;
      case 'kv-a-norm-ones':
        norms.kv_a_layernorm = new Float32Array(L).fill(1);
        notes.push('attn_kv_a_norm all ones (the weight was not converted)');
        break;
      case 'q-a-norm-ones':
        norms.q_a_layernorm = new Float32Array(c.q_lora_rank).fill(1);
        notes.push('attn_q_a_norm all ones (the weight was not converted)');
        break;
      case 'head-count':
        meta.set(`${a}.head_count`, u32(N * 2));
        notes.push(`attention.head_count ${N * 2} (true ${N})`);
        break;
    }
  }
  const transform = transforms.length ? (name: string, v: Float32Array) => transforms.reduce((x, f) => f(name, x), v) : undefined;
  const planted = Object.keys(norms).length || kvB ? overriding(source, norms, kvB) : source;
  return { meta, source: planted, ...(transform ? { transform } : {}), notes };
}

/** [N, A, B] → [N, B, A]. */
function transposeLast(v: Float32Array, n: number, a: number, b: number): Float32Array {
  const out = new Float32Array(v.length);
  for (let h = 0; h < n; h++) for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) out[(h * b + j) * a + i] = v[(h * a + i) * b + j]!;
  return out;
}
