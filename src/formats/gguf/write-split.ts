import { rmSync } from 'node:fs';
import { MlaDiffError } from '../../errors';
import { shardPath } from './split';
import type { GgufEntry } from './types';
import { type GgufMetadataInput, type TensorToWrite, metadataEntries, tensorBytes, writeGguf } from './write';

/**
 * Cuts `sizes` into `n` consecutive non-empty runs of about equal bytes; returns each run's end.
 */
export function partition(sizes: readonly number[], n: number): number[] {
  if (sizes.length === 0) return Array.from({ length: n }, () => 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const ends: number[] = [];
  let i = 0;
  let acc = 0;
  for (let s = 0; s < n; s++) {
    const target = (total * (s + 1)) / n;
    const mustLeave = n - s - 1;
    do acc += sizes[i++]!;
    while (i < sizes.length - mustLeave && (s === n - 1 || acc + sizes[i]! / 2 <= target));
    ends.push(i);
  }
  return ends;
}

/**
 * Writes the tensors over `shards` files as gguf-split does: each shard a complete GGUF v3 holding a
 * consecutive run of tensors (about equal bytes), the metadata in the first shard only, then in
 * every shard split.no (UINT16, from 0), split.count (UINT16) and split.tensors.count (INT32, all
 * shards together). Files are `${base}-0000k-of-0000N.gguf`; returns their paths in order.
 */
export function writeGgufSplit(base: string, metadata: GgufMetadataInput, tensors: readonly TensorToWrite[], shards: number): string[] {
  if (!Number.isInteger(shards) || shards < 1 || shards > Math.max(1, tensors.length) || shards > 99999) {
    throw new MlaDiffError(
      'invalid-value',
      `cannot split ${tensors.length} tensors over ${shards} shards`,
      { field: 'shards' },
      'every shard holds at least one tensor',
    );
  }
  const entries = metadataEntries(metadata).filter(([k]) => !k.startsWith('split.'));
  const ends = partition(
    tensors.map((t) => tensorBytes(t.name, t.ne, t.type)),
    shards,
  );
  const paths: string[] = [];
  try {
    for (let s = 0; s < shards; s++) {
      const path = shardPath(base, s + 1, shards);
      const meta = new Map<string, GgufEntry>(s === 0 ? entries : []);
      meta.set('split.no', { type: 'UINT16', value: s });
      meta.set('split.count', { type: 'UINT16', value: shards });
      meta.set('split.tensors.count', { type: 'INT32', value: tensors.length });
      paths.push(path);
      writeGguf(path, meta, tensors.slice(s === 0 ? 0 : ends[s - 1], ends[s]));
    }
  } catch (e) {
    for (const p of paths) rmSync(p, { force: true });
    throw e;
  }
  return paths;
}
