import type { LoaderFault } from '../../trace';
/**
 * kv_b_proj and llama.cpp's split attn_k_b / attn_v_b. The converter (DeepseekV2Model.modify_tensors):
 *
 *   kv_b = W.view(H, P + V, L); k_b, v_b = split(kv_b, [P, V], dim=1); k_b = k_b.transpose(1, 2)
 *
 * so k_b is [H, L, P] (ggml ne {P, L, H}) and v_b [H, V, L]. mergeKvB is its exact inverse:
 * kv_b[h·(P+V) + p][l] = k_b[h][l][p] and kv_b[h·(P+V) + P + i][l] = v_b[h][i][l].
 */
export interface KvBDims {
  heads: number;
  nope: number;
  v: number;
  rank: number;
}

/** The planted loader bugs (`k-b-wrong-axis`: attn_k_b reassembled along the wrong axis): src/trace/names.ts. */
export type { LoaderFault } from '../../trace';
export { LOADER_FAULTS } from '../../trace';

/** What each loader fault models, for `mla-diff stages`. */
export const LOADER_FAULT_DOCS: Record<LoaderFault, { enters: string; summary: string; bug: string }> = {
  'k-b-wrong-axis': {
    enters: 'W kv_b_proj (its W_UK rows), then k_nope / ql_nope',
    summary: 'attn_k_b [H, L, P] reassembled into kv_b_proj as if it were [H, P, L] (a view where the inverse of the converter transposes)',
    bug:
      'loaders rebuilding kv_b_proj from split GGUFs: kvcache-ai/ktransformers#1333, ' +
      'ikawrakow/ik_llama.cpp#394 (split from ggml-org/llama.cpp#12801)',
  },
};

/** kv_b_proj [H·(P+V), L] from k_b [H, L, P] and v_b [H, V, L] (all row-major). */
export function mergeKvB(kB: Float32Array, vB: Float32Array, d: KvBDims, fault?: LoaderFault): Float32Array {
  const { heads: H, nope: P, v: V, rank: L } = d;
  const out = new Float32Array(H * (P + V) * L);
  for (let h = 0; h < H; h++) {
    const base = h * (P + V) * L;
    for (let p = 0; p < P; p++) {
      const row = base + p * L;
      if (fault === 'k-b-wrong-axis') {
        out.set(kB.subarray((h * P + p) * L, (h * P + p + 1) * L), row);
      } else {
        for (let l = 0; l < L; l++) out[row + l] = kB[(h * L + l) * P + p]!;
      }
    }
    out.set(vB.subarray(h * V * L, (h + 1) * V * L), base + P * L);
  }
  return out;
}

/** The converter's split: kv_b_proj [H·(P+V), L] → k_b [H, L, P] and v_b [H, V, L]. */
export function splitKvB(kvB: Float32Array, d: KvBDims): { kB: Float32Array; vB: Float32Array } {
  const { heads: H, nope: P, v: V, rank: L } = d;
  const kB = new Float32Array(H * L * P);
  const vB = new Float32Array(H * V * L);
  for (let h = 0; h < H; h++) {
    const base = h * (P + V) * L;
    for (let p = 0; p < P; p++) for (let l = 0; l < L; l++) kB[(h * L + l) * P + p] = kvB[base + p * L + l]!;
    vB.set(kvB.subarray(base + P * L, base + (P + V) * L), h * V * L);
  }
  return { kB, vB };
}
