import { f16ToF32 } from '../../formats/half';
import type { Llama } from './library';

/** The fields of a ggml_tensor the capture reads (the struct decoded at the verified offsets). */
export interface TensorHead {
  type: number;
  ne: number[];
  nb: number[];
  op: number;
  opParams: number[];
  src: unknown[];
  name: string;
}

/** Decodes the head of a ggml_tensor; its name read from the struct must equal ggml_get_name (checked once per run). */
export function readHead(l: Llama, t: unknown): TensorHead {
  const s = l.koffi.decode(t, l.types.tensor) as {
    type: number;
    ne: BigInt64Array;
    nb: BigUint64Array;
    op: number;
    op_params: Int32Array;
    src: unknown[];
    name: string;
  };
  return {
    type: s.type,
    ne: Array.from(s.ne, Number),
    nb: Array.from(s.nb, Number),
    op: s.op,
    opParams: Array.from(s.op_params),
    src: Array.from(s.src).filter((p) => p !== null),
    name: s.name,
  };
}

const GGML_F32 = 0;
const GGML_F16 = 1;

/**
 * A node's values, gathered contiguous in ne order through its strides (views are strided) and
 * widened to float32; null for a type other than F32 and F16. Reads through ggml_backend_tensor_get,
 * which also reads tensors that live on a GPU.
 */
export function readValues(l: Llama, t: unknown, h: TensorHead): Float32Array | null {
  if (h.type !== GGML_F32 && h.type !== GGML_F16) return null;
  const size = Number(l.fn.ggml_nbytes!(t));
  const raw = Buffer.alloc(size);
  l.fn.ggml_backend_tensor_get!(t, raw, 0, size);
  const [n0, n1, n2, n3] = h.ne as [number, number, number, number];
  const [b0, b1, b2, b3] = h.nb as [number, number, number, number];
  const out = new Float32Array(n0 * n1 * n2 * n3);
  const f32 = h.type === GGML_F32;
  let k = 0;
  for (let i3 = 0; i3 < n3; i3++)
    for (let i2 = 0; i2 < n2; i2++)
      for (let i1 = 0; i1 < n1; i1++) {
        const row = i3 * b3 + i2 * b2 + i1 * b1;
        if (f32 && b0 === 4) {
          out.set(new Float32Array(raw.buffer, raw.byteOffset + row, n0), k);
          k += n0;
          continue;
        }
        for (let i0 = 0; i0 < n0; i0++) out[k++] = f32 ? raw.readFloatLE(row + i0 * b0) : f16ToF32(raw.readUInt16LE(row + i0 * b0));
      }
  return out;
}
