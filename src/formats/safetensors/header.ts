import { MlaDiffError } from '../../errors';
import type { RandomAccessFile } from '../file';
import { isSafetensorsDtype, tensorByteSize } from './dtypes';
import type { SafetensorsTensorInfo } from './types';
import { jsonDepth, MAX_JSON_DEPTH } from './json-depth';

/** The safetensors crate refuses headers above 100 MB (`MAX_HEADER_SIZE`); so do we. */
const MAX_HEADER_BYTES = 100_000_000;

export interface SafetensorsHeader {
  /** Tensors in header (JSON) order, offsets absolute. */
  tensors: SafetensorsTensorInfo[];
  metadata: Record<string, string>;
  /** 8 + N: where the byte buffer starts. */
  dataStart: number;
}

const NOT_SAFETENSORS = 'is this a safetensors file? (it starts with an 8-byte little-endian header length, then JSON)';

function invalid(file: string, message: string, field?: string, hint?: string): MlaDiffError {
  return new MlaDiffError('checkpoint-invalid', message, field === undefined ? { file } : { file, field }, hint);
}

/** Sets a key from the file as an own property: `__proto__` or `constructor` are keys like any other. */
export const setOwn = (o: Record<string, string>, k: string, v: string): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
};

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and validates a header: known dtypes, spans matching shapes, offsets contiguous from 0 to the file's end. */
export function readSafetensorsHeader(f: RandomAccessFile): SafetensorsHeader {
  const file = f.path;
  const n64 = f.read(0, 8, 'header length').readBigUInt64LE(0);
  if (n64 < 2n || n64 > BigInt(MAX_HEADER_BYTES)) {
    throw invalid(file, `header length ${n64} is outside 2..${MAX_HEADER_BYTES}`, undefined, NOT_SAFETENSORS);
  }
  const n = Number(n64);
  if (8 + n > f.size) {
    throw new MlaDiffError(
      'checkpoint-truncated',
      `the header says it is ${n} bytes but the file is ${f.size} bytes`,
      { file },
      'the file is truncated (an interrupted download?) or not a safetensors file',
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(f.read(8, n, 'header'));
  } catch {
    throw invalid(file, 'the header is not valid UTF-8', undefined, NOT_SAFETENSORS);
  }
  let json: unknown;
  try {
    if (!text.startsWith('{')) throw new Error('no {');
    if (jsonDepth(text) > MAX_JSON_DEPTH) throw new Error(`arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`);
    json = JSON.parse(text);
  } catch (e) {
    throw invalid(file, `the header is not a JSON object: ${(e as Error).message}`, undefined, NOT_SAFETENSORS);
  }
  if (!isObject(json)) throw invalid(file, 'the header is not a JSON object', undefined, NOT_SAFETENSORS);

  const dataStart = 8 + n;
  const metadata: Record<string, string> = {};
  const tensors: SafetensorsTensorInfo[] = [];
  const spans: { name: string; begin: number; end: number }[] = [];
  for (const [name, entry] of Object.entries(json)) {
    if (name === '__metadata__') {
      if (!isObject(entry)) throw invalid(file, '__metadata__ must be a map of strings', name);
      for (const [k, v] of Object.entries(entry)) {
        if (typeof v !== 'string') throw invalid(file, `__metadata__.${k} must be a string, got ${typeof v}`, name);
        setOwn(metadata, k, v);
      }
      continue;
    }
    if (!isObject(entry)) throw invalid(file, 'a tensor entry must be {dtype, shape, data_offsets}', name);
    const { dtype, shape, data_offsets: offs } = entry;
    if (!isSafetensorsDtype(dtype)) {
      throw invalid(
        file,
        dtype === undefined ? 'no dtype' : `unknown dtype ${JSON.stringify(dtype).slice(0, 80)}`,
        name,
        'safetensors dtypes are spelled F32, F16, BF16, F8_E4M3, I64, ... (upper case)',
      );
    }
    if (!Array.isArray(shape) || !shape.every(isIndex)) throw invalid(file, 'shape must be an array of non-negative integers', name);
    if (!Array.isArray(offs) || offs.length !== 2 || !offs.every(isIndex) || (offs[0] as number) > (offs[1] as number)) {
      throw invalid(file, 'data_offsets must be [begin, end] with 0 ≤ begin ≤ end', name);
    }
    const [begin, end] = offs as [number, number];
    const size = tensorByteSize(dtype, shape as number[]);
    if (size !== end - begin) {
      throw new MlaDiffError(
        'tensor-shape',
        `data_offsets span ${end - begin} bytes but ${dtype} [${shape.join(', ')}] needs ${size ?? 'a non-whole number of'} bytes`,
        { file, field: name },
        'the header is corrupt, or was written with a wrong shape or dtype',
      );
    }
    tensors.push({ name, dtype, shape: shape as number[], file, offset: dataStart + begin, bytes: size });
    spans.push({ name, begin, end });
  }

  // As the safetensors crate: sorted by offsets, the spans must tile [0, buffer end) exactly.
  spans.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  let last = '';
  for (const s of spans) {
    if (s.begin < at) throw invalid(file, `data_offsets [${s.begin}, ${s.end}] overlap ${last}, which ends at ${at}`, s.name);
    if (s.begin > at) throw invalid(file, `data_offsets begin at ${s.begin}, leaving a hole after byte ${at}`, s.name);
    at = s.end;
    last = s.name;
  }
  if (dataStart + at > f.size) {
    throw new MlaDiffError(
      'checkpoint-truncated',
      `tensor data ends at byte ${dataStart + at} but the file is ${f.size} bytes`,
      { file, field: last },
      'the file is truncated (an interrupted download?)',
    );
  }
  if (dataStart + at < f.size) {
    throw invalid(
      file,
      `${f.size - dataStart - at} bytes after the last tensor's data`,
      undefined,
      'the header does not cover the whole byte buffer (safetensors allows no trailing bytes)',
    );
  }
  return { tensors, metadata, dataStart };
}
