import { closest } from 'fastest-levenshtein';
import { MlaDiffError } from '../../errors';
import { RandomAccessFile } from '../file';
import { DEQUANT_TYPES, codecFor } from './codecs';
import { GGML_TYPES } from './ggml-types';
import type { GgufModel, GgufTensorInfo } from './types';

/** Bytes dequantized per read: big tensors are streamed through a buffer of about this size. */
const CHUNK_BYTES = 16 << 20;

/** The tensor `name`, or a 'tensor-missing' error with the closest name as a hint. */
export function tensorInfo(m: GgufModel, name: string): GgufTensorInfo {
  const t = m.tensors.get(name);
  if (t !== undefined) return t;
  const names = [...m.tensors.keys()];
  throw new MlaDiffError(
    'tensor-missing',
    `no tensor ${name} in the checkpoint (${names.length} tensors)`,
    { file: m.files[0]!, field: name },
    names.length > 0 ? `did you mean ${closest(name, names)}?` : undefined,
  );
}

interface Span {
  info: GgufTensorInfo;
  offset: number;
  bytes: number;
  elements: number;
}

/**
 * The bytes of rows [r0, r1) of the outermost PyTorch dim (ne's last); all of it without `rows`.
 * A row of a tensor of ≥ 2 dims is whole ggml rows, so it is contiguous and block-aligned.
 */
function span(m: GgufModel, name: string, rows?: readonly [number, number]): Span {
  const info = tensorInfo(m, name);
  if (rows === undefined) {
    const elements = info.ne.reduce((a, b) => a * b, 1);
    return { info, offset: info.offset, bytes: info.bytes, elements };
  }
  const { ne } = info;
  const outer = ne.length > 0 ? ne[ne.length - 1]! : 1;
  const unit = ne.slice(0, -1).reduce((a, b) => a * b, 1);
  const [r0, r1] = rows;
  const { block, bytes } = GGML_TYPES[info.type];
  const ok = Number.isInteger(r0) && Number.isInteger(r1) && r0 >= 0 && r0 <= r1 && r1 <= outer;
  if (!ok || (r0 * unit) % block !== 0 || (r1 * unit) % block !== 0) {
    throw new MlaDiffError(
      'invalid-value',
      `rows [${r0}, ${r1}) of tensor ${name} (shape [${info.shape.join(', ')}]) are out of range or split a ${info.type} block`,
      { file: info.file, field: name },
    );
  }
  const offset = info.offset + ((r0 * unit) / block) * bytes;
  const elements = (r1 - r0) * unit;
  return { info, offset, bytes: (elements / block) * bytes, elements };
}

/** Raw bytes of a tensor, or of rows [r0, r1) of its outermost PyTorch dim. */
export function readTensorBytes(m: GgufModel, name: string, rows?: [number, number]): Uint8Array {
  const s = span(m, name, rows);
  const f = RandomAccessFile.open(s.info.file);
  try {
    return new Uint8Array(f.read(s.offset, s.bytes, `tensor ${name}`));
  } finally {
    f.close();
  }
}

/**
 * Reads a tensor (or rows [r0, r1) of its outermost PyTorch dim) and dequantizes it to float32 in
 * PyTorch order (row-major over reversed ne), streaming through a bounded buffer.
 */
export function readTensorF32(m: GgufModel, name: string, rows?: [number, number]): Float32Array {
  const s = span(m, name, rows);
  const { type, file } = s.info;
  const codec = codecFor(type);
  if (codec === undefined) {
    throw new MlaDiffError(
      'unsupported-dtype',
      `unsupported type ${type} in tensor ${name}`,
      { file, field: name },
      `this tool dequantizes ${[...DEQUANT_TYPES].join(', ')}; re-quantize the checkpoint to one of them`,
    );
  }
  const { block, bytes: blockBytes } = GGML_TYPES[type];
  const out = new Float32Array(s.elements);
  const blocksPerChunk = Math.max(1, Math.floor(CHUNK_BYTES / blockBytes));
  const buf = new Uint8Array(Math.min(s.bytes, blocksPerChunk * blockBytes));
  const f = RandomAccessFile.open(file);
  try {
    for (let done = 0; done < s.elements;) {
      const n = Math.min(s.elements - done, blocksPerChunk * block);
      const len = (n / block) * blockBytes;
      f.read(s.offset + (done / block) * blockBytes, len, `tensor ${name}`, buf);
      codec.dequantize(buf, 0, out, done, n);
      done += n;
    }
  } finally {
    f.close();
  }
  return out;
}
