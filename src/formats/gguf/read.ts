import { MlaDiffError } from '../../errors';
import { readGgufHeader } from './header';
import { loadShards } from './split';
import type { GgufModel, GgufTensorInfo, GgufValue } from './types';

export { readTensorBytes, readTensorF32, tensorInfo } from './tensor';

/**
 * Opens a .gguf or any shard of a split (`name-0000k-of-0000N.gguf`): finds and parses all N
 * shards (a missing one is 'file-not-found' naming it). Headers only; tensor data is read on demand.
 */
export function openGguf(path: string): GgufModel {
  const given = readGgufHeader(path);
  const shards = loadShards(path, given, readGgufHeader);
  const first = shards[0]!;
  const tensors = new Map<string, GgufTensorInfo>();
  for (const h of shards) {
    for (const t of h.tensors) {
      const prev = tensors.get(t.name);
      if (prev !== undefined) {
        throw new MlaDiffError('checkpoint-invalid', `tensor ${t.name} is in two shards (also in ${prev.file})`, {
          file: h.file,
          field: t.name,
        });
      }
      tensors.set(t.name, t);
    }
  }
  return {
    files: shards.map((h) => h.file),
    version: first.version,
    alignment: first.alignment,
    metadata: first.metadata,
    tensors,
    totalBytes: shards.reduce((a, h) => a + h.size, 0),
  };
}

/** Metadata value by key, or undefined. */
export function metaValue(m: GgufModel, key: string): GgufValue | undefined {
  return m.metadata.get(key)?.value;
}
