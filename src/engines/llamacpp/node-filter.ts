/**
 * Which nodes of llama.cpp's graph the capture asks for: layer 0's attention (names end in `-0`;
 * the K cache views are `cache_k_l0 …`; attn_output's product is unnamed and found by its source
 * kqv_out-0). The FFN and the output head are never compared: metadata only.
 */
export type NodeKeep = 'values' | 'meta' | 'skip';

export function layerNode(name: string, src: readonly string[]): NodeKeep {
  if (/^cache_[kv]_l0\b/.test(name)) return 'values';
  if (src.includes('kqv_out-0') && !name.endsWith('-0')) return 'values';
  if (!name.endsWith('-0')) return 'skip';
  if (/^(ffn_|l_out|ffn_inp)/.test(name)) return 'meta';
  return 'values';
}
