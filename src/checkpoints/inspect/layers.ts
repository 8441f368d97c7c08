import type { InspectTensor, KvBLayout, LayerPattern } from './types';

/** A tensor as either header describes it (GGUF type or safetensors dtype). */
export interface RawTensor {
  name: string;
  type: string;
  shape: number[];
  bytes: number;
}

export type NameScheme = 'gguf' | 'hf';

/**
 * Attention tensors of a layer. GGUF: `blk.N.attn_*` (attn_norm included) and the DSA indexer
 * `blk.N.indexer.*`; Hugging Face: `model.layers.N.self_attn.*` and `model.layers.N.input_layernorm.*`.
 */
const ATTENTION: Record<NameScheme, RegExp> = {
  gguf: /^blk\.(\d+)\.((?:attn_|indexer\.).+)$/,
  hf: /^model\.layers\.(\d+)\.(?:self_attn\.(.+)|(input_layernorm\..+))$/,
};

/** `attn_q_a.weight` → `attn_q_a`; other suffixes (`.bias`, `.weight_scale_inv`) stay. */
const shortName = (rest: string): string => rest.replace(/\.weight$/, '');

/** The attention tensors of every layer that has any, by layer, in file order. */
export function attentionByLayer(tensors: Iterable<RawTensor>, scheme: NameScheme): Map<number, InspectTensor[]> {
  const out = new Map<number, InspectTensor[]>();
  for (const t of tensors) {
    const m = ATTENTION[scheme].exec(t.name);
    if (!m) continue;
    const layer = Number(m[1]);
    const list = out.get(layer) ?? [];
    list.push({ name: t.name, short: shortName(m[2] ?? m[3]!), type: t.type, shape: [...t.shape], bytes: t.bytes });
    out.set(layer, list);
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

/** Groups layers whose attention tensors have the same names, types and shapes, in order of first layer. */
export function layerPatterns(byLayer: ReadonlyMap<number, InspectTensor[]>): LayerPattern[] {
  const bySignature = new Map<string, LayerPattern>();
  for (const [layer, tensors] of byLayer) {
    const shape = tensors.map((t) => ({ short: t.short, type: t.type, shape: t.shape }));
    const key = JSON.stringify(shape);
    const p = bySignature.get(key);
    if (p) p.layers.push(layer);
    else bySignature.set(key, { layers: [layer], tensors: shape });
  }
  return [...bySignature.values()];
}

const MERGED = new Set(['attn_kv_b', 'kv_b_proj']);

function layoutOf(tensors: readonly InspectTensor[]): Exclude<KvBLayout, 'mixed'> {
  const names = new Set(tensors.map((t) => t.short));
  const split = names.has('attn_k_b') && names.has('attn_v_b');
  const merged = [...MERGED].some((n) => names.has(n));
  return split && merged ? 'both' : split ? 'split' : merged ? 'merged' : 'none';
}

/** kv_b_proj's storage over all layers: one layout, or `mixed` when layers differ. */
export function kvBLayout(byLayer: ReadonlyMap<number, InspectTensor[]>): KvBLayout {
  const seen = new Set([...byLayer.values()].map(layoutOf));
  if (seen.size === 0) return 'none';
  return seen.size === 1 ? [...seen][0]! : 'mixed';
}

/** `0–2, 5, 7–77`: sorted integers as runs. */
export function layerRanges(layers: readonly number[]): string {
  const sorted = [...new Set(layers)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    runs.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
}
