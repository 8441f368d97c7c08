import { MlaDiffError } from '../../errors';
import { f32ToBf16, f32ToF16 } from '../half';
import { elementCount } from './dtypes';
import { E4M3_MAX, f32ToE4M3 } from './fp8';
import { matrixView, scaleGrid, scaleInvName } from './scales';
import type { TensorToWrite } from './types';

const fround = Math.fround;
const INF = Infinity;
/** Smallest positive float32: the scale of a block whose absmax/448 underflows. */
const MIN_SCALE = 2 ** -149;

/** One header entry of a file being written; `encode` produces its bytes when the file is streamed. */
export interface PlannedEntry {
  name: string;
  dtype: 'F32' | 'F16' | 'BF16' | 'F8_E4M3' | 'I32';
  shape: number[];
  bytes: number;
  encode(): Uint8Array;
}

function bad(name: string, message: string, code: 'invalid-value' | 'tensor-shape' = 'invalid-value'): MlaDiffError {
  return new MlaDiffError(code, message, { field: name });
}

/**
 * DeepSeek-V3 block scales: per bm×bn block (partial at the edges) s = fround(absmax/448), 1 for an
 * all-zero block. Stored as `_scale_inv` (= s; the reader multiplies).
 */
export function blockScales(t: TensorToWrite & { data: Float32Array }, block: [number, number]): Float32Array {
  const [m, n] = matrixView(t.shape);
  const [gr, gc] = scaleGrid(t.shape, block);
  const absmax = new Float64Array(gr * gc);
  const d = t.data;
  for (let r = 0; r < m; r++) {
    const g = ((r / block[0]) | 0) * gc;
    for (let c = 0; c < n; c++) {
      const x = d[r * n + c]!;
      const a = x < 0 ? -x : x;
      if (!(a < INF)) throw bad(t.name, `element [${r}, ${c}] is ${x}; FP8 block scaling needs finite values`);
      const k = g + ((c / block[1]) | 0);
      if (a > absmax[k]!) absmax[k] = a;
    }
  }
  const s = new Float32Array(gr * gc);
  for (let k = 0; k < s.length; k++) {
    const a = absmax[k]!;
    s[k] = a === 0 ? 1 : fround(a / E4M3_MAX) || MIN_SCALE;
  }
  return s;
}

function encodeF8(t: TensorToWrite & { data: Float32Array }, scales: Float32Array, block: [number, number]): Uint8Array {
  const [m, n] = matrixView(t.shape);
  const gc = scaleGrid(t.shape, block)[1];
  const out = new Uint8Array(m * n);
  const d = t.data;
  for (let r = 0; r < m; r++) {
    const g = ((r / block[0]) | 0) * gc;
    for (let c = 0; c < n; c++) out[r * n + c] = f32ToE4M3(d[r * n + c]! / scales[g + ((c / block[1]) | 0)]!);
  }
  return out;
}

function encode16(d: Float32Array, conv: (x: number) => number): Uint8Array {
  const out = new Uint8Array(d.length * 2);
  for (let i = 0; i < d.length; i++) {
    const h = conv(d[i]!);
    out[2 * i] = h & 0xff;
    out[2 * i + 1] = h >>> 8;
  }
  return out;
}

/** The header entries one tensor becomes (an F8_E4M3 weight is followed by its F32 `_scale_inv`). Little-endian host. */
export function planTensor(t: TensorToWrite, block: [number, number]): PlannedEntry[] {
  const { name, dtype, shape } = t;
  if (name === '' || name === '__metadata__') throw bad(name, `${JSON.stringify(name)} cannot name a tensor`);
  if (!['F32', 'F16', 'BF16', 'F8_E4M3', 'I32'].includes(dtype)) throw bad(name, `cannot write dtype ${dtype}`);
  if (!Array.isArray(shape) || !shape.every((x) => Number.isSafeInteger(x) && x >= 0)) {
    throw bad(name, `shape [${String(shape)}] is not a list of non-negative integers`, 'tensor-shape');
  }
  const count = elementCount(shape);
  if (count !== t.data.length)
    throw bad(name, `shape [${shape.join(', ')}] has ${count} elements but data has ${t.data.length}`, 'tensor-shape');
  const sh = [...shape];
  if (t.dtype === 'I32') {
    const ints = t.data;
    return [
      { name, dtype: 'I32', shape: sh, bytes: count * 4, encode: () => new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength) },
    ];
  }
  const data = t.data;
  switch (t.dtype) {
    case 'F32':
      return [{ name, dtype, shape: sh, bytes: count * 4, encode: () => new Uint8Array(data.buffer, data.byteOffset, data.byteLength) }];
    case 'F16':
      return [{ name, dtype, shape: sh, bytes: count * 2, encode: () => encode16(data, f32ToF16) }];
    case 'BF16':
      return [{ name, dtype, shape: sh, bytes: count * 2, encode: () => encode16(data, f32ToBf16) }];
    case 'F8_E4M3': {
      const scales = blockScales(t, block);
      const grid = scaleGrid(shape, block);
      return [
        { name, dtype, shape: sh, bytes: count, encode: () => encodeF8(t, scales, block) },
        { name: scaleInvName(name), dtype: 'F32', shape: grid, bytes: scales.length * 4, encode: () => new Uint8Array(scales.buffer) },
      ];
    }
  }
}
