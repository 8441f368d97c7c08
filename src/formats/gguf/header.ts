import { MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../file';
import { statRegularFile } from '../regular-file';
import { HeaderCursor } from './cursor';
import { GGML_TYPES, ggmlTypeOf, rowBytes } from './ggml-types';
import { alignmentOf, readMetadata } from './metadata-read';
import type { GgufEntry, GgufTensorInfo } from './types';
import { GGUF_MAGIC, MAX_DIMS, MAX_METADATA_KEYS, MAX_NAME_BYTES, MAX_TENSORS, alignUp } from './value-types';

/** One parsed GGUF file (a whole model or one shard of a split). */
export interface GgufFileHeader {
  file: string;
  size: number;
  version: number;
  alignment: number;
  metadata: Map<string, GgufEntry>;
  /** In file order; offsets are absolute. */
  tensors: GgufTensorInfo[];
  /** Absolute offset of the data section. */
  dataStart: number;
}

const invalid = (file: string, field: string | undefined, msg: string, hint?: string): MlaDiffError =>
  new MlaDiffError('checkpoint-invalid', msg, { file, ...(field !== undefined ? { field } : {}) }, hint);

/** Parses a GGUF header (v2 or v3, little-endian) and validates every tensor against the file. */
export function readGgufHeader(path: string): GgufFileHeader {
  // a FIFO would block the open, a device be read as a file
  statRegularFile(path, 'a GGUF file');
  const f = RandomAccessFile.open(path);
  try {
    return parseHeader(f);
  } finally {
    f.close();
  }
}

export function parseHeader(f: RandomAccessFile): GgufFileHeader {
  const c = new HeaderCursor(f);
  c.field = 'magic';
  const magic = c.u32();
  if (magic !== GGUF_MAGIC) {
    throw invalid(f.path, 'magic', `not a GGUF file: magic 0x${magic.toString(16).padStart(8, '0')}, expected "GGUF"`);
  }
  c.field = 'version';
  const version = c.u32();
  if ((version & 0xffff) === 0 && version !== 0) {
    throw invalid(
      f.path,
      'version',
      'a big-endian GGUF file: only little-endian files are supported',
      'convert it with gguf-py (or re-export it) as little-endian',
    );
  }
  if (version !== 2 && version !== 3) {
    throw invalid(
      f.path,
      'version',
      version === 1 ? 'GGUF v1 is not supported' : `unsupported GGUF version ${version}`,
      'only GGUF versions 2 and 3 are read',
    );
  }
  c.field = 'tensor_count';
  const nTensors = c.count('tensor count', 24, MAX_TENSORS);
  c.field = 'metadata_kv_count';
  const nKv = c.count('metadata count', 13, MAX_METADATA_KEYS);
  const metadata = readMetadata(c, nKv);
  const alignment = alignmentOf(metadata, f.path);
  const infos = readTensorInfos(c, nTensors);
  const dataStart = alignUp(c.pos, alignment);
  const tensors = infos.map((t) => placeTensor(f, t, dataStart, alignment));
  checkOverlaps(f.path, tensors);
  return { file: f.path, size: f.size, version, alignment, metadata, tensors, dataStart };
}

interface RawInfo {
  name: string;
  ne: number[];
  typeId: number;
  rel: bigint;
}

function readTensorInfos(c: HeaderCursor, n: number): RawInfo[] {
  const path = c.file.path;
  const out: RawInfo[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    c.field = `tensor_info[${i}].name`;
    const [name, nameBytes] = c.strAndBytes();
    if (nameBytes > MAX_NAME_BYTES) {
      throw invalid(path, name, `tensor name is ${nameBytes} bytes, at most ${MAX_NAME_BYTES} allowed`);
    }
    if (seen.has(name)) throw invalid(path, name, `duplicate tensor name ${name}`);
    seen.add(name);
    c.field = name;
    const nDims = c.u32();
    if (nDims > MAX_DIMS) throw invalid(path, name, `tensor has ${nDims} dimensions, at most ${MAX_DIMS} allowed`);
    const ne: number[] = [];
    for (let j = 0; j < nDims; j++) {
      const d = c.u64();
      if (d > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(path, name, `ne[${j}] = ${d} is too large`);
      ne.push(Number(d));
    }
    const typeId = c.u32();
    out.push({ name, ne, typeId, rel: c.u64() });
  }
  return out;
}

function placeTensor(f: RandomAccessFile, r: RawInfo, dataStart: number, alignment: number): GgufTensorInfo {
  const { name, ne } = r;
  const type = ggmlTypeOf(r.typeId);
  if (type === undefined) {
    throw new MlaDiffError(
      'unsupported-dtype',
      `unknown ggml type id ${r.typeId} in tensor ${name}`,
      { file: f.path, field: name },
      'a ggml type newer than this tool, or a corrupt header',
    );
  }
  const { block } = GGML_TYPES[type];
  const ne0 = ne[0] ?? 1;
  if (ne0 % block !== 0) {
    throw invalid(f.path, name, `ne[0] = ${ne0} is not a multiple of the ${type} block size ${block}`);
  }
  const rows = ne.slice(1).reduce((a, b) => a * b, 1);
  const bytes = rowBytes(type, ne0) * rows;
  if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(ne0 * rows)) {
    throw invalid(f.path, name, `shape [${ne.join(', ')}] is too large`);
  }
  if (r.rel % BigInt(alignment) !== 0n) {
    throw invalid(f.path, name, `tensor offset ${r.rel} is not a multiple of the alignment ${alignment}`);
  }
  const offset = dataStart + Number(r.rel);
  if (r.rel > BigInt(f.size) || offset + bytes > f.size) {
    throw new MlaDiffError(
      'checkpoint-truncated',
      `tensor offset past the end of the file: bytes ${offset}..${offset + bytes} of a ${f.size}-byte file`,
      { file: f.path, field: name },
      'the file is truncated (an interrupted download?) or its header is corrupt',
    );
  }
  return { name, ne, shape: [...ne].reverse(), type, file: f.path, offset, bytes };
}

function checkOverlaps(file: string, tensors: readonly GgufTensorInfo[]): void {
  const sorted = [...tensors].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.offset < a.offset + a.bytes) {
      throw invalid(file, b.name, `tensor ${b.name} (from byte ${b.offset}) overlaps ${a.name} (bytes ${a.offset}..${a.offset + a.bytes})`);
    }
  }
}
