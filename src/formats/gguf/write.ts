import { closeSync, openSync, rmSync } from 'node:fs';
import { MlaDiffError } from '../../errors';
import { FileWriter } from './file-writer';
import { GGML_TYPES, type GgmlType, type TypeTraits, rowBytes } from './ggml-types';
import { writeEntry } from './metadata-write';
import type { GgufEntry } from './types';
import { DEFAULT_ALIGNMENT, GGUF_MAGIC, MAX_DIMS, MAX_NAME_BYTES, alignUp, isPowerOf2 } from './value-types';

/** A tensor whose encoded bytes are at hand. */
export interface GgufTensorToWrite {
  name: string;
  /** ggml order: ne[0] is the contiguous dimension (PyTorch shape reversed). */
  ne: readonly number[];
  type: GgmlType;
  /** Already encoded in `type`. */
  data: Uint8Array;
}

/**
 * A tensor produced when the writer reaches it, so that only one is in memory at a time.
 * `produce` returns the encoded bytes whole or as consecutive chunks (for tensors of GBs).
 */
export interface LazyTensor {
  name: string;
  ne: readonly number[];
  type: GgmlType;
  /** Encoded size, when the caller knows it: checked against ne and type. */
  bytes?: number;
  produce(): Uint8Array | Iterable<Uint8Array>;
}

export type TensorToWrite = GgufTensorToWrite | LazyTensor;

export type GgufMetadataInput = ReadonlyMap<string, GgufEntry> | Readonly<Record<string, GgufEntry>>;

const bad = (field: string, msg: string): MlaDiffError => new MlaDiffError('invalid-value', msg, { field });

export const metadataEntries = (m: GgufMetadataInput): [string, GgufEntry][] =>
  m instanceof Map ? [...(m as ReadonlyMap<string, GgufEntry>).entries()] : Object.entries(m);

/** Encoded bytes of a tensor of shape `ne` (ggml order) in `type`; checks the shape. */
export function tensorBytes(name: string, ne: readonly number[], type: GgmlType): number {
  const traits = GGML_TYPES[type] as TypeTraits | undefined;
  if (traits === undefined) throw bad(name, `unknown ggml type ${String(type)}`);
  if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) throw bad(name, `tensor name longer than ${MAX_NAME_BYTES} bytes`);
  if (ne.length < 1 || ne.length > MAX_DIMS || !ne.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw bad(name, `ne [${ne.join(', ')}] must be 1..${MAX_DIMS} non-negative integers`);
  }
  if (ne[0]! % traits.block !== 0) throw bad(name, `ne[0] = ${ne[0]} is not a multiple of the ${type} block size ${traits.block}`);
  return rowBytes(type, ne[0]!) * ne.slice(1).reduce((a, b) => a * b, 1);
}

function chunksOf(t: TensorToWrite): Iterable<Uint8Array> {
  if ('data' in t) return [t.data];
  const p = t.produce();
  return p instanceof Uint8Array ? [p] : p;
}

/** `general.alignment` if given (a UINT32 power of 2), else 32. */
function alignmentOf(entries: readonly [string, GgufEntry][]): number {
  const e = entries.find(([k]) => k === 'general.alignment')?.[1];
  if (e === undefined) return DEFAULT_ALIGNMENT;
  if (e.type !== 'UINT32' || !isPowerOf2(e.value as number)) throw bad('general.alignment', 'must be a UINT32 power of 2');
  return e.value as number;
}

/**
 * Writes a GGUF v3 file: header (metadata in the given order, tensor infos with aligned offsets),
 * then each tensor's data, produced and written one at a time, each padded to the alignment.
 * A failed write leaves no file behind.
 */
export function writeGguf(path: string, metadata: GgufMetadataInput, tensors: readonly TensorToWrite[]): void {
  const entries = metadataEntries(metadata);
  const alignment = alignmentOf(entries);
  const sizes = tensors.map((t) => {
    const n = tensorBytes(t.name, t.ne, t.type);
    const declared = 'data' in t ? t.data.length : t.bytes;
    if (declared !== undefined && declared !== n) throw bad(t.name, `${declared} bytes given, shape and type need ${n}`);
    return n;
  });
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw bad(t.name, `duplicate tensor name ${t.name}`);
    names.add(t.name);
  }
  const fd = openSync(path, 'w');
  let done = false;
  try {
    const w = new FileWriter(fd);
    w.u32(GGUF_MAGIC);
    w.u32(3);
    w.u64(tensors.length);
    w.u64(entries.length);
    for (const [k, e] of entries) writeEntry(w, k, e);
    let offset = 0;
    tensors.forEach((t, i) => {
      w.str(t.name);
      w.u32(t.ne.length);
      for (const d of t.ne) w.u64(d);
      w.u32(GGML_TYPES[t.type].id);
      w.u64(offset);
      offset = alignUp(offset + sizes[i]!, alignment);
    });
    w.pad(alignment);
    tensors.forEach((t, i) => {
      let n = 0;
      for (const chunk of chunksOf(t)) {
        n += chunk.length;
        if (n > sizes[i]!) throw bad(t.name, `produced more than the ${sizes[i]} bytes its shape and type need`);
        w.bytes(chunk);
      }
      if (n !== sizes[i]) throw bad(t.name, `produced ${n} bytes, its shape and type need ${sizes[i]}`);
      w.pad(alignment);
    });
    w.flush();
    done = true;
  } finally {
    closeSync(fd);
    if (!done) rmSync(path, { force: true });
  }
}
