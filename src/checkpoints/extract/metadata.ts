import type { GgufEntry } from '../../formats/gguf/types';
import type { LayerPlan } from './plan';

/**
 * The metadata of a one-layer model cut from a checkpoint: the source's keys as they are (general.*
 * and every hyperparameter of the attention), with block_count = 1, per-layer arrays cut to the
 * layer, MTP layers (nextn_predict_layers) and expert groups set to 0, the split.* keys of a
 * sharded source and its tokenizer.ggml.* keys left out (the model is fed embeddings, never token
 * ids), and where it came from under mla-diff.extract.*. The dense-layer keys (expert counts, FFN
 * widths, leading_dense_block_count, the dummy vocabulary) are the runnable model's to set.
 */

/** Arrays of block_count entries that are not per layer. */
const NOT_PER_LAYER = new Set(['rope.dimension_sections']);
/** Keys that must say "no MoE, no MTP" once the layer is dense and alone. */
const ZEROED = ['nextn_predict_layers', 'expert_group_count', 'expert_group_used_count'];

const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });

export interface OneLayerMetadata {
  meta: Map<string, GgufEntry>;
  /** Keys whose per-layer array was cut to the layer. */
  cut: string[];
  /** Keys left out (split.*, tokenizer.*). */
  dropped: string[];
}

export function oneLayerMetadata(source: ReadonlyMap<string, GgufEntry>, plan: LayerPlan, sourceName: string): OneLayerMetadata {
  const { arch, layer, blockCount } = plan;
  const meta = new Map<string, GgufEntry>();
  const cut: string[] = [];
  const dropped: string[] = [];
  for (const [key, e] of source) {
    if (key.startsWith('split.') || key.startsWith('tokenizer.')) {
      dropped.push(key);
      continue;
    }
    const local = key.startsWith(`${arch}.`) ? key.slice(arch.length + 1) : undefined;
    const perLayer = local !== undefined && !NOT_PER_LAYER.has(local) && e.type === 'ARRAY' && (e.value as unknown[]).length === blockCount;
    if (perLayer && blockCount > 1) {
      const value = (e.value as unknown[])[layer] as GgufEntry['value'];
      const items = e.items ? [e.items[layer]!] : undefined;
      meta.set(key, { ...e, value: [value], ...(items ? { items } : {}) });
      cut.push(key);
      continue;
    }
    meta.set(key, e);
  }
  meta.set(`${arch}.block_count`, u32(1));
  for (const k of ZEROED) if (meta.has(`${arch}.${k}`)) meta.set(`${arch}.${k}`, u32(0));
  meta.set('mla-diff.extract.source', { type: 'STRING', value: sourceName });
  meta.set('mla-diff.extract.layer', u32(layer));
  return { meta, cut, dropped };
}
