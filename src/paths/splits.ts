/**
 * Triton MLA decode split-KV: kv_len_per_split = cdiv(S, num_kv_splits); split j covers
 * [j·len, min((j+1)·len, S)), empty when it starts past S (its partial result is skipped).
 */
export function splitRanges(S: number, splits: number): [number, number][] {
  const per = Math.ceil(S / Math.max(1, splits));
  return Array.from({ length: Math.max(1, splits) }, (_, j): [number, number] => [Math.min(j * per, S), Math.min((j + 1) * per, S)]);
}
