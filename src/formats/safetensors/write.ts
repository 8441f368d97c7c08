import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { planTensor, type PlannedEntry } from './encode';
import { INDEX_FILE } from './open';
import { checkBlock, DEFAULT_BLOCK } from './scales';
import type { TensorToWrite } from './types';

/** Each tensor's entries, with names checked unique across all of them (scale names included). */
function plan(tensors: readonly TensorToWrite[], blockSize: readonly number[]): PlannedEntry[][] {
  const block = checkBlock(blockSize, 'blockSize');
  const seen = new Set<string>();
  return tensors.map((t) => {
    const entries = planTensor(t, block);
    for (const e of entries) {
      if (seen.has(e.name)) throw new MlaDiffError('invalid-value', 'two tensors have this name', { field: e.name });
      seen.add(e.name);
    }
    return entries;
  });
}

/** Header: __metadata__ first, then the entries in order; padded with spaces so 8 + N is a multiple of 8. */
function headerBytes(entries: readonly PlannedEntry[], metadata?: Record<string, string>): Buffer {
  const parts: string[] = [];
  if (metadata) parts.push(`"__metadata__":${JSON.stringify(metadata)}`);
  let at = 0;
  for (const e of entries) {
    parts.push(`${JSON.stringify(e.name)}:{"dtype":"${e.dtype}","shape":[${e.shape.join(',')}],"data_offsets":[${at},${at + e.bytes}]}`);
    at += e.bytes;
  }
  const json = Buffer.from(`{${parts.join(',')}}`, 'utf8');
  const n = Math.ceil(json.length / 8) * 8;
  const out = Buffer.alloc(8 + n, 0x20);
  out.writeBigUInt64LE(BigInt(n), 0);
  json.copy(out, 8);
  return out;
}

/** Streams header then tensors, one at a time, to `${path}.tmp`, renamed over `path` when complete. */
function writeEntries(path: string, entries: readonly PlannedEntry[], metadata?: Record<string, string>): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    const write = (b: Uint8Array): void => {
      for (let done = 0; done < b.length;) done += writeSync(fd, b, done, b.length - done);
    };
    write(headerBytes(entries, metadata));
    for (const e of entries) write(e.encode());
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/**
 * Writes one safetensors file. F8_E4M3 tensors are followed by `${name}_scale_inv` F32
 * [ceil(M/bm), ceil(N/bn)]: per block s = absmax/448 (1 for an all-zero block), q = round_e4m3(x/s)
 * (nearest even, saturating; see fp8.ts). Header keys in the given order. Bad names, shapes or
 * non-finite FP8 input: 'invalid-value' / 'tensor-shape' before anything is written.
 */
export function writeSafetensors(
  path: string,
  tensors: readonly TensorToWrite[],
  metadata?: Record<string, string>,
  blockSize: [number, number] = DEFAULT_BLOCK,
): void {
  writeEntries(path, plan(tensors, blockSize).flat(), metadata);
}

export const shardName = (k: number, n: number): string =>
  `model-${String(k).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`;

/** Contiguous groups, exactly `shards` of them, each non-empty, cut near equal byte totals. */
function split<T>(items: readonly T[], size: (t: T) => number, shards: number): T[][] {
  const total = items.reduce((a, t) => a + size(t), 0);
  const groups: T[][] = [[]];
  let acc = 0;
  items.forEach((t, i) => {
    const k = groups.length - 1;
    const shardsAfter = shards - 1 - k;
    if (groups[k]!.length > 0 && shardsAfter > 0 && (acc >= (total * (k + 1)) / shards || items.length - i <= shardsAfter)) groups.push([]);
    groups[groups.length - 1]!.push(t);
    acc += size(t);
  });
  return groups;
}

/**
 * Writes `shards` files model-0000k-of-0000N.safetensors in `dir` (created if needed), each with
 * `metadata` as __metadata__, and model.safetensors.index.json {"metadata": {"total_size"}, "weight_map"}.
 * A weight and its `_scale_inv` stay in one shard. Needs 1 ≤ shards ≤ tensors.length.
 */
export function writeShardedSafetensors(
  dir: string,
  tensors: readonly TensorToWrite[],
  shards: number,
  metadata?: Record<string, string>,
  blockSize: [number, number] = DEFAULT_BLOCK,
): void {
  if (!Number.isSafeInteger(shards) || shards < 1 || shards > tensors.length) {
    throw new MlaDiffError(
      'invalid-value',
      `cannot split ${tensors.length} tensors into ${shards} shards`,
      { field: 'shards' },
      'give 1 ≤ shards ≤ the number of tensors',
    );
  }
  const planned = plan(tensors, blockSize);
  const bytesOf = (es: PlannedEntry[]): number => es.reduce((a, e) => a + e.bytes, 0);
  const groups = split(planned, bytesOf, shards);
  mkdirSync(dir, { recursive: true });
  const weightMap: Record<string, string> = {};
  let totalSize = 0;
  groups.forEach((g, k) => {
    const file = shardName(k + 1, shards);
    const entries = g.flat();
    writeEntries(join(dir, file), entries, metadata);
    for (const e of entries) weightMap[e.name] = file;
    totalSize += bytesOf(entries);
  });
  writeFileSync(join(dir, INDEX_FILE), `${JSON.stringify({ metadata: { total_size: totalSize }, weight_map: weightMap }, null, 2)}\n`);
}
