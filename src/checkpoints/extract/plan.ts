import { MlaDiffError } from '../../errors';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { tensorInfo } from '../../formats/gguf/tensor';
import type { GgufModel, GgufTensorInfo } from '../../formats/gguf/types';
import { MLA_ARCHS } from '../checkpoint/config-gguf';

/**
 * Which tensors of one layer of a GGUF checkpoint a one-layer model keeps: the attention (every
 * projection and norm, in the file's own types) and, for glm-dsa, the DSA indexer when the file
 * has one. Everything else of the layer (MoE experts, router, shared experts, FFN norm, MTP heads)
 * is listed as not copied: a runnable model fills a dense FFN in its place.
 */

/** A tensor copied byte for byte: its place in the source and its name in the one-layer model (blk.0.*). */
export interface KeptTensor {
  /** Name in the one-layer model. */
  name: string;
  source: GgufTensorInfo;
}

export interface LayerPlan {
  arch: (typeof MLA_ARCHS)[number];
  layer: number;
  /** `${arch}.block_count` of the source (MTP layers included, as llama.cpp counts them). */
  blockCount: number;
  attention: KeptTensor[];
  /** The source's DSA indexer of this layer (glm-dsa), or null when the file has none. */
  indexer: KeptTensor[] | null;
  /** The layer's other tensors, in file order: not copied. */
  notCopied: string[];
}

const COMMON = ['attn_norm', 'attn_q_a', 'attn_q_a_norm', 'attn_q_b', 'attn_kv_a_mqa', 'attn_kv_a_norm', 'attn_output'];
/** llama.cpp's DSA indexer tensors (glm-dsa.cpp): all or none. */
export const INDEXER_PARTS = [
  'indexer.k_norm.weight',
  'indexer.k_norm.bias',
  'indexer.proj.weight',
  'indexer.attn_k.weight',
  'indexer.attn_q_b.weight',
];

const blk = (n: number, part: string) => `blk.${n}.${part}`;

/** The source's architecture and block count, checked to be MLA. */
function archOf(m: GgufModel): { arch: LayerPlan['arch']; blockCount: number } {
  const file = m.files[0]!;
  const arch = m.metadata.get('general.architecture')?.value;
  if (typeof arch !== 'string' || !(MLA_ARCHS as readonly string[]).includes(arch)) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `general.architecture is ${JSON.stringify(arch ?? null)}, not an MLA model`,
      { file, field: 'general.architecture' },
      `extract reads ${MLA_ARCHS.join(', ')} (GLM-5, DeepSeek-V2/V3)`,
    );
  }
  const n = m.metadata.get(`${arch}.block_count`)?.value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    throw new MlaDiffError('checkpoint-invalid', 'missing or invalid block count', { file, field: `${arch}.block_count` });
  }
  return { arch: arch as LayerPlan['arch'], blockCount: n };
}

/** The plan for layer `layer`: a missing attention tensor is 'tensor-missing' (with the closest name). */
export function planLayer(m: GgufModel, layer: number): LayerPlan {
  const { arch, blockCount } = archOf(m);
  if (!Number.isInteger(layer) || layer < 0 || layer >= blockCount) {
    throw new MlaDiffError(
      'invalid-value',
      `layer ${layer} is not in the checkpoint: it has layers 0..${blockCount - 1}`,
      { file: m.files[0]!, field: '--layer' },
      `${arch}.block_count is ${blockCount}`,
    );
  }
  const keep = (part: string): KeptTensor => ({ name: blk(0, part), source: tensorInfo(m, blk(layer, part)) });
  const attention = COMMON.map((p) => keep(`${p}.weight`));
  // Split attn_k_b / attn_v_b when present (a file with both: llama.cpp's MLA graph leaves attn_kv_b unused, and refuses it).
  const split = m.tensors.has(blk(layer, 'attn_k_b.weight')) || !m.tensors.has(blk(layer, 'attn_kv_b.weight'));
  const kvB = split ? ['attn_k_b', 'attn_v_b'] : ['attn_kv_b'];
  attention.splice(5, 0, ...kvB.map((p) => keep(`${p}.weight`)));
  const hasIndexer = arch === 'glm-dsa' && INDEXER_PARTS.every((p) => m.tensors.has(blk(layer, p)));
  const indexer = hasIndexer ? INDEXER_PARTS.map(keep) : null;
  const kept = new Set([...attention, ...(indexer ?? [])].map((t) => t.source.name));
  const prefix = blk(layer, '');
  const notCopied = [...m.tensors.keys()].filter((n) => n.startsWith(prefix) && !kept.has(n));
  return { arch, layer, blockCount, attention, indexer, notCopied };
}

/** Bytes a model's shards spend before their first tensor (headers and padding): what opening it reads at most. */
export function headerBytes(m: GgufModel): number {
  const first = new Map<string, number>();
  for (const t of m.tensors.values()) first.set(t.file, Math.min(first.get(t.file) ?? t.offset, t.offset));
  return m.files.reduce((a, f) => a + (first.get(f) ?? 0), 0);
}

/** `name (TYPE)` of each kept tensor, for reports. */
export const keptSummary = (ts: readonly KeptTensor[]): { name: string; from: string; type: GgmlType; bytes: number }[] =>
  ts.map((t) => ({ name: t.name, from: t.source.name, type: t.source.type, bytes: t.source.bytes }));
