import { existsSync } from 'node:fs';
import { MlaDiffError } from '../../errors';
import type { GgufFileHeader } from './header';
import type { GgufEntry } from './types';

/** Split-file names as gguf-split writes them: `${base}-00001-of-00003.gguf`, numbered from 1. */
const SHARD_RE = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/;

export interface ShardName {
  base: string;
  no: number;
  count: number;
}

/** The base, 1-based shard number and shard count of a split-file name, or undefined. */
export function parseShardName(path: string): ShardName | undefined {
  const m = SHARD_RE.exec(path);
  if (!m) return undefined;
  const no = Number(m[2]);
  const count = Number(m[3]);
  return no >= 1 && no <= count ? { base: m[1]!, no, count } : undefined;
}

export const shardPath = (base: string, no: number, count: number): string =>
  `${base}-${String(no).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.gguf`;

/** The split.* key `key` of a shard as a number, or undefined when absent. */
export function splitKey(h: GgufFileHeader, key: string): number | undefined {
  const e: GgufEntry | undefined = h.metadata.get(key);
  if (e === undefined) return undefined;
  if (typeof e.value !== 'number') {
    throw new MlaDiffError('checkpoint-invalid', `${key} must be an integer, got ${e.type}`, { file: h.file, field: key });
  }
  return e.value;
}

/**
 * All shards of the split `first` belongs to, `first` included, in order. A shard name whose file
 * has no split.count (or 1) is one file, as llama.cpp reads it.
 */
export function loadShards(path: string, first: GgufFileHeader, read: (p: string) => GgufFileHeader): GgufFileHeader[] {
  const name = parseShardName(path);
  const count = splitKey(first, 'split.count');
  if (count === undefined || (count <= 1 && name === undefined)) return [first];
  if (name === undefined) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `split.count says ${count} shards but the file name is not a shard name`,
      { file: path, field: 'split.count' },
      'split files are named <base>-0000k-of-0000N.gguf; restore the original names',
    );
  }
  const paths = Array.from({ length: name.count }, (_, i) => shardPath(name.base, i + 1, name.count));
  for (const [i, p] of paths.entries()) {
    if (!existsSync(p)) {
      throw new MlaDiffError(
        'file-not-found',
        `shard ${i + 1} of ${name.count} of the split is missing`,
        { file: p },
        'download every shard of the split into the same folder',
      );
    }
  }
  const shards = paths.map((p, i) => (i + 1 === name.no ? first : read(p)));
  for (const [i, h] of shards.entries()) {
    const n = splitKey(h, 'split.count');
    if (n !== name.count) {
      throw new MlaDiffError(
        'checkpoint-invalid',
        `split.count is ${n ?? 'missing'} but the split has ${name.count} shards (file names -of-${String(name.count).padStart(5, '0')})`,
        { file: h.file, field: 'split.count' },
        'shards of different splits are mixed, or a shard was renamed',
      );
    }
    const no = splitKey(h, 'split.no');
    if (no !== undefined && no !== i) {
      throw new MlaDiffError(
        'checkpoint-invalid',
        `split.no is ${no} but the file name says shard ${i + 1} (split.no ${i})`,
        { file: h.file, field: 'split.no' },
        'a shard was renamed',
      );
    }
  }
  const total = shards.reduce((a, h) => a + h.tensors.length, 0);
  const declared = splitKey(shards[0]!, 'split.tensors.count');
  if (declared !== undefined && declared !== total) {
    throw new MlaDiffError('checkpoint-invalid', `split.tensors.count is ${declared} but the shards hold ${total} tensors`, {
      file: shards[0]!.file,
      field: 'split.tensors.count',
    });
  }
  return shards;
}
