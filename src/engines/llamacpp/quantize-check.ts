/**
 * A llama.cpp-quantized file measured against its F32 source and against ggml's own dequantization:
 * per tensor, our decoder's values against ggml's to_float (bit for bit), and the quantization error
 * against the F32 source relative to our bound machinery (boundRows: half a quant step of each
 * element's block, the bound gguf-layer.ts reports as a checkpoint's errorBound).
 *
 * That bound holds for files our own never-clipping quantizer wrote; llama.cpp's quantizers exceed
 * it, by the factors below (bench/checkpoint/llama-quantize.md has the measurements).
 */
import { boundRows } from '../../formats/gguf/codecs';
import { LLAMA_BOUND_FACTOR } from '../../formats/gguf/quant-bounds';
export { LLAMA_BOUND_FACTOR } from '../../formats/gguf/quant-bounds';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { openGguf, readTensorBytes, readTensorF32 } from '../../formats/gguf/read';
import type { QuantizeResult } from './quantize';

export interface QuantizedTensorCheck {
  name: string;
  type: GgmlType;
  /** PyTorch order. */
  shape: number[];
  /** Elements whose float32 bits differ between our decoder and ggml's to_float (NaN = NaN). */
  bitMismatches: number;
  /** max |ours − ggml|. */
  maxOursVsGgml: number;
  /** max |ours − F32 source|. */
  maxError: number;
  /** max over elements of |ours − source| / bound (0 where both are 0); null for F32/F16/BF16 tensors. */
  maxErrorOverBound: number | null;
  /** The largest per-element bound (half a step) in the tensor; null for F32/F16/BF16 tensors. */
  maxBound: number | null;
  /** max |F32 source|. */
  maxAbsSource: number;
  /**
   * maxErrorOverBound ≤ LLAMA_BOUND_FACTOR[type] for quantized types; for F16/BF16 every element within
   * half an ulp of its source (|err| ≤ max(|x|·2⁻¹¹, 2⁻²⁵) / |x|·2⁻⁸), for F32 exact.
   */
  withinBound: boolean;
  /** Whether the source tensor is all zeros (the runnable model's filler: trivially exact). */
  zeroSource: boolean;
}

/**
 * Round-to-nearest of the float types: half an ulp of 11 (F16) and 8 (BF16) significant bits, and
 * below F16's normal range half its subnormal step 2⁻²⁴ (token embeddings of std 0.02 reach it).
 */
const FLOAT_REL: Partial<Record<GgmlType, [number, number]>> = { F32: [0, 0], F16: [2 ** -11, 2 ** -25], BF16: [2 ** -8, 0] };

const FLOATS: readonly GgmlType[] = ['F32', 'F16', 'BF16'];

/** Every tensor of `q` (with `q.ggml`) checked against `source`, the F32 file it was quantized from. */
export function checkQuantized(source: string, q: QuantizeResult): QuantizedTensorCheck[] {
  const src = openGguf(source);
  const m = openGguf(q.file);
  const out: QuantizedTensorCheck[] = [];
  for (const info of m.tensors.values()) {
    const ours = readTensorF32(m, info.name);
    const ref = readTensorF32(src, info.name);
    const ggml = info.type === 'F32' ? ours : q.ggml?.get(info.name);
    if (ggml === undefined) throw new Error(`no ggml dequantization of ${info.name}: quantize with { ggml: true }`);
    const [a, g] = [new Uint32Array(ours.buffer, ours.byteOffset, ours.length), new Uint32Array(ggml.buffer, ggml.byteOffset, ggml.length)];
    const n = info.shape.reduce((x, y) => x * y, 1);
    const bound = FLOATS.includes(info.type) ? null : boundRows(info.type, readTensorBytes(m, info.name), n);
    const rel = FLOAT_REL[info.type];
    let [bitMismatches, maxOursVsGgml, maxError, ratio, maxBound, maxAbsSource, zeroSource, floatOk] = [0, 0, 0, 0, 0, 0, true, true];
    // Comparisons, not Math.max/Math.abs: under jest's vm context those calls are ~50× slower per element.
    for (let i = 0; i < n; i++) {
      const [o, x, r] = [ours[i]!, ggml[i]!, ref[i]!];
      if (a[i] !== g[i] && !(o !== o && x !== x)) bitMismatches++;
      const dg = o > x ? o - x : x - o;
      if (dg > maxOursVsGgml) maxOursVsGgml = dg;
      const e = o > r ? o - r : r - o;
      const absR = r < 0 ? -r : r;
      if (e > maxError) maxError = e;
      if (r !== 0) zeroSource = false;
      if (absR > maxAbsSource) maxAbsSource = absR;
      if (rel !== undefined && e > absR * rel[0] && e > rel[1]) floatOk = false;
      if (bound) {
        const b = bound[i]!;
        if (b > maxBound) maxBound = b;
        const q = e === 0 ? 0 : b === 0 ? Infinity : e / b;
        if (q > ratio) ratio = q;
      }
    }
    out.push({
      name: info.name,
      type: info.type,
      shape: info.shape,
      bitMismatches,
      maxOursVsGgml,
      maxError,
      maxErrorOverBound: bound ? ratio : null,
      maxBound: bound ? maxBound : null,
      maxAbsSource,
      withinBound: bound ? ratio <= (LLAMA_BOUND_FACTOR[info.type] ?? 1) : floatOk,
      zeroSource,
    });
  }
  return out;
}
