// safetensors for the mutant backend: a reader of the dtypes mla-diff writes (F32, I32) and a few
// more (F64, F16, BF16), widened to float64; a writer of F64 or F32 tensors. No dependencies.
import { readFileSync, writeFileSync } from 'node:fs';

const WIDTH = { F64: 8, F32: 4, I32: 4, F16: 2, BF16: 2 };

/** One element of `dtype` at byte `at` of `view`, as a JS number (`scratch`: 4 bytes for the bf16 widening). */
function element(view, dtype, at, scratch) {
  switch (dtype) {
    case 'F64':
      return view.getFloat64(at, true);
    case 'F32':
      return view.getFloat32(at, true);
    case 'I32':
      return view.getInt32(at, true);
    case 'BF16':
      scratch.setUint16(0, view.getUint16(at, true)); // big-endian scratch: the bf16 bits are the float's high half
      return scratch.getFloat32(0);
    case 'F16': {
      const h = view.getUint16(at, true);
      const sign = h & 0x8000 ? -1 : 1;
      const exp = (h >> 10) & 0x1f;
      const frac = h & 0x3ff;
      if (exp === 0) return sign * frac * 2 ** -24;
      if (exp === 31) return frac ? NaN : sign * Infinity;
      return sign * (1 + frac / 1024) * 2 ** (exp - 15);
    }
    default:
      throw new Error(`safetensors: dtype ${dtype} not supported`);
  }
}

/** The file's tensors by name, each read on demand: { shape, values: Float64Array }. */
export function openSafetensors(file) {
  const bytes = readFileSync(file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const base = 8 + headerLength;
  const scratch = new DataView(new ArrayBuffer(4));
  return (name) => {
    const entry = header[name];
    if (!entry) throw new Error(`${file} has no tensor ${name}`);
    const [begin, end] = entry.data_offsets;
    const width = WIDTH[entry.dtype];
    if (entry.dtype === 'F32') {
      const aligned = new Uint8Array(bytes.subarray(base + begin, base + end)); // a copy: Buffer views may sit at any offset
      return { shape: entry.shape, values: Float64Array.from(new Float32Array(aligned.buffer)) };
    }
    const values = new Float64Array((end - begin) / width);
    for (let i = 0; i < values.length; i++) values[i] = element(view, entry.dtype, base + begin + i * width, scratch);
    return { shape: entry.shape, values };
  };
}

/** Writes { name: { shape, values } } with values a Float64Array (F64) or a Float32Array (F32), 8-byte aligned header. */
export function saveSafetensors(file, tensors) {
  const header = {};
  const chunks = [];
  let offset = 0;
  for (const name of Object.keys(tensors).sort()) {
    const { shape, values } = tensors[name];
    const dtype = values instanceof Float64Array ? 'F64' : 'F32';
    const data = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    header[name] = { dtype, shape, data_offsets: [offset, offset + data.byteLength] };
    chunks.push(data);
    offset += data.byteLength;
  }
  const text = JSON.stringify(header);
  const padded = new TextEncoder().encode(text + ' '.repeat((8 - (new TextEncoder().encode(text).length % 8)) % 8));
  const prefix = new DataView(new ArrayBuffer(8));
  prefix.setBigUint64(0, BigInt(padded.length), true);
  writeFileSync(file, Buffer.concat([new Uint8Array(prefix.buffer), padded, ...chunks]));
}
