import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../file';
import { statRegularFile } from '../regular-file';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { readSafetensorsHeader, setOwn, type SafetensorsHeader } from './header';
import type { SafetensorsModel, SafetensorsTensorInfo } from './types';

export const INDEX_FILE = 'model.safetensors.index.json';

function readHeaderOf(path: string): SafetensorsHeader {
  // a FIFO would block the open, a device be read as a file
  statRegularFile(path, 'a safetensors file');
  const f = RandomAccessFile.open(path);
  try {
    return readSafetensorsHeader(f);
  } finally {
    f.close();
  }
}

function model(files: string[], tensors: SafetensorsTensorInfo[], metadata: Record<string, string>): SafetensorsModel {
  const map = new Map<string, SafetensorsTensorInfo>();
  let totalBytes = 0;
  for (const t of tensors) {
    const prev = map.get(t.name);
    if (prev) {
      throw new MlaDiffError(
        'checkpoint-invalid',
        `tensor is in both ${prev.file} and ${t.file}`,
        { file: t.file, field: t.name },
        'without an index the shards must not repeat a tensor',
      );
    }
    map.set(t.name, t);
    totalBytes += t.bytes;
  }
  return { files, tensors: map, metadata, totalBytes };
}

/** Several .safetensors files with no index: all of them, in name order. */
function openFiles(files: string[]): SafetensorsModel {
  const tensors: SafetensorsTensorInfo[] = [];
  const metadata: Record<string, string> = {};
  for (const file of files) {
    const h = readHeaderOf(file);
    tensors.push(...h.tensors);
    for (const [k, v] of Object.entries(h.metadata)) if (!Object.hasOwn(metadata, k)) setOwn(metadata, k, v);
  }
  return model(files, tensors, metadata);
}

/** An index names every tensor once: DeepSeek-V3's is 9 MB. Far larger is no index. */
const MAX_INDEX_BYTES = 256 * 2 ** 20;
/** DeepSeek-V3 ships 163 shards; an index naming more than this many files is refused before any is opened. */
const MAX_SHARDS = 100_000;

/** The index file's JSON: a regular file, bounded in size and in nesting (its metadata is re-serialized). */
function readIndexJson(indexPath: string): unknown {
  const st = statRegularFile(indexPath, 'a safetensors index');
  if (st.size > MAX_INDEX_BYTES)
    throw new MlaDiffError('limit-exceeded', `the index is ${st.size} bytes; at most ${MAX_INDEX_BYTES} are read`, { file: indexPath });
  let text: string;
  try {
    text = readFileSync(indexPath, 'utf8');
  } catch (e) {
    throw new MlaDiffError('file-unreadable', `cannot read: ${(e as Error).message}`, { file: indexPath });
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new MlaDiffError('checkpoint-invalid', `the index nests deeper than ${MAX_JSON_DEPTH} levels`, { file: indexPath });
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MlaDiffError('checkpoint-invalid', `the index is not JSON: ${(e as Error).message}`, { file: indexPath });
  }
}

/** The shard files an index names: bounded in number, and each a file name beside the index (never a path out of its folder). */
function checkShards(indexPath: string, shards: readonly string[]): void {
  if (shards.length > MAX_SHARDS)
    throw new MlaDiffError('limit-exceeded', `the index names ${shards.length} shard files; at most ${MAX_SHARDS}`, {
      file: indexPath,
      field: 'weight_map',
    });
  const out = shards.find((f) => !f || isAbsolute(f) || f.split(/[\\/]/).includes('..') || f.includes('\0'));
  if (out !== undefined)
    throw new MlaDiffError(
      'checkpoint-invalid',
      `the index names shard ${JSON.stringify(out.slice(0, 200))}, which is not a file beside it`,
      { file: indexPath, field: 'weight_map' },
      'shards are named by file name relative to the index, e.g. "model-00001-of-00002.safetensors"',
    );
}

/** A `*.safetensors.index.json`: {"metadata": {...}, "weight_map": {tensor: shard file}}. */
function openIndex(indexPath: string): SafetensorsModel {
  const json = readIndexJson(indexPath);
  const wm = (json as { weight_map?: unknown } | null)?.weight_map;
  if (typeof wm !== 'object' || wm === null || Array.isArray(wm) || !Object.values(wm).every((v) => typeof v === 'string')) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      'the index has no weight_map of tensor name → file',
      { file: indexPath, field: 'weight_map' },
      'a sharded checkpoint index looks like {"metadata": {"total_size": N}, "weight_map": {"tensor": "model-00001-of-00002.safetensors"}}',
    );
  }
  const weightMap = wm as Record<string, string>;
  const dir = dirname(indexPath);
  const shards = [...new Set(Object.values(weightMap))].sort();
  checkShards(indexPath, shards);
  const files = shards.map((f) => join(dir, f));
  const headers = new Map(files.map((f) => [f, readHeaderOf(f)] as const));
  const byFile = new Map<string, Map<string, SafetensorsTensorInfo>>();
  for (const [f, h] of headers) byFile.set(f, new Map(h.tensors.map((t) => [t.name, t])));

  const tensors: SafetensorsTensorInfo[] = [];
  for (const [name, rel] of Object.entries(weightMap)) {
    const file = join(dir, rel);
    const t = byFile.get(file)?.get(name);
    if (!t) {
      throw new MlaDiffError(
        'tensor-missing',
        `the index puts it in ${rel}, whose header does not have it`,
        { file, field: name },
        'the index and the shards disagree; re-download the checkpoint',
      );
    }
    tensors.push(t);
  }
  const metadata: Record<string, string> = {};
  for (const h of headers.values())
    for (const [k, v] of Object.entries(h.metadata)) if (!Object.hasOwn(metadata, k)) setOwn(metadata, k, v);
  const im = (json as { metadata?: unknown }).metadata;
  if (typeof im === 'object' && im !== null && !Array.isArray(im)) {
    for (const [k, v] of Object.entries(im)) setOwn(metadata, k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return model(files, tensors, metadata);
}

/**
 * path: a .safetensors file, a *.safetensors.index.json, or a directory holding either (the index
 * is preferred; with no index, every .safetensors file in the directory). Reads headers only.
 */
export function openSafetensors(path: string): SafetensorsModel {
  const p = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(p).isDirectory();
  } catch {
    throw new MlaDiffError('file-not-found', 'no such file or directory', { file: p });
  }
  if (!isDir) return p.endsWith('.json') ? openIndex(p) : openFiles([p]);
  const names = readdirSync(p).sort();
  const indexes = names.filter((n) => n.endsWith('.safetensors.index.json'));
  if (indexes.includes(INDEX_FILE)) return openIndex(join(p, INDEX_FILE));
  if (indexes.length === 1) return openIndex(join(p, indexes[0]!));
  const files = names.filter((n) => n.endsWith('.safetensors')).map((n) => join(p, n));
  if (files.length === 0) {
    throw new MlaDiffError(
      'file-not-found',
      `no ${INDEX_FILE} and no .safetensors file in the directory`,
      { file: p },
      'point at the checkpoint directory (with config.json and the .safetensors shards) or at one .safetensors file',
    );
  }
  return openFiles(files);
}
