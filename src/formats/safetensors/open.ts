import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../file';
import { readSafetensorsHeader, type SafetensorsHeader } from './header';
import type { SafetensorsModel, SafetensorsTensorInfo } from './types';

export const INDEX_FILE = 'model.safetensors.index.json';

function readHeaderOf(path: string): SafetensorsHeader {
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
    for (const [k, v] of Object.entries(h.metadata)) if (!(k in metadata)) metadata[k] = v;
  }
  return model(files, tensors, metadata);
}

/** A `*.safetensors.index.json`: {"metadata": {...}, "weight_map": {tensor: shard file}}. */
function openIndex(indexPath: string): SafetensorsModel {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(indexPath, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new MlaDiffError('file-not-found', 'no such file', { file: indexPath });
    if (code) throw new MlaDiffError('file-unreadable', `cannot read: ${(e as Error).message}`, { file: indexPath });
    throw new MlaDiffError('checkpoint-invalid', `the index is not JSON: ${(e as Error).message}`, { file: indexPath });
  }
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
  const files = [...new Set(Object.values(weightMap))].sort().map((f) => join(dir, f));
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
  for (const h of headers.values()) for (const [k, v] of Object.entries(h.metadata)) if (!(k in metadata)) metadata[k] = v;
  const im = (json as { metadata?: unknown }).metadata;
  if (typeof im === 'object' && im !== null && !Array.isArray(im)) {
    for (const [k, v] of Object.entries(im)) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
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
