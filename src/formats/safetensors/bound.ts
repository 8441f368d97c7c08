import { MlaDiffError } from '../../errors';
import { elementCount } from './dtypes';
import { decodeTensor, elementRange, readRawBits } from './decode';
import { E4M3_HALF_SPACING } from './fp8';
import { DEFAULT_BLOCK, forEachBlockScale, readBlockScales, tensorInfo } from './scales';
import type { SafetensorsModel } from './types';

/** Half an ulp of every 16-bit pattern, by its exponent field: 2^(max(e,1) − bias − mantissa bits − 1); Inf/NaN → Infinity. */
function halfUlpTable(expBits: number, manBits: number): Float32Array {
  const t = new Float32Array(65536);
  const bias = (1 << (expBits - 1)) - 1;
  const emax = (1 << expBits) - 1;
  for (let h = 0; h < 65536; h++) {
    const e = (h >> manBits) & emax;
    t[h] = e === emax ? Infinity : 2 ** ((e === 0 ? 1 : e) - bias - manBits - 1);
  }
  return t;
}

const BF16_HALF_ULP = halfUlpTable(8, 7);
const F16_HALF_ULP = halfUlpTable(5, 10);

/** float32 rounding slack on the FP8 product decode(q)·scale and on x/scale: 2^-23 of the magnitudes. */
const F32_SLACK = 2 ** -23;

/**
 * Max |error| per element of a weight (or of rows [r0, r1) of its first dim) as stored versus the float32 it was quantized from by our
 * writer:
 * F32 → 0; BF16/F16 → half an ulp of the stored value (Infinity where it overflowed to Inf);
 * F8_E4M3 → h·s + 2^-23·(|w| + h·s), h = half the E4M3 spacing at the stored byte (E4M3_HALF_SPACING),
 * s = its block scale (1 without `_scale_inv`), w = the dequantized value; the 2^-23 term covers the
 * float32 roundings of x/s and of q·s. Every bound is rounded up to float32.
 */
export function weightBoundF32(
  model: SafetensorsModel,
  name: string,
  blockSize: [number, number] = DEFAULT_BLOCK,
  rows?: [number, number],
): Float32Array {
  const info = tensorInfo(model, name);
  if (rows && info.dtype === 'F8_E4M3') {
    // block scales are indexed from row 0: bound the whole tensor, keep the rows
    const [first, count] = elementRange(info, rows);
    return weightBoundF32(model, name, blockSize).slice(first, first + count);
  }
  if (info.dtype === 'F32') return new Float32Array(elementRange(info, rows)[1]);
  if (info.dtype === 'BF16' || info.dtype === 'F16') {
    const table = info.dtype === 'BF16' ? BF16_HALF_ULP : F16_HALF_ULP;
    const raw = readRawBits(info, rows);
    const out = new Float32Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = table[raw[i]!]!;
    return out;
  }
  const n = elementCount(info.shape)!;
  const out = new Float32Array(n);
  switch (info.dtype) {
    case 'F8_E4M3': {
      const raw = readRawBits(info);
      const q = decodeTensor(info, ['F8_E4M3']);
      const out32 = new Uint32Array(out.buffer);
      const put = (i: number, s: number): void => {
        const hs = E4M3_HALF_SPACING[raw[i]!]! * s;
        const w = q[i]! * s;
        const b = hs + F32_SLACK * ((w < 0 ? -w : w) + hs);
        out[i] = b;
        if (out[i]! < b) out32[i] = out32[i]! + 1; // round up: next float32 (b ≥ 0)
      };
      const bs = readBlockScales(model, info, blockSize);
      if (bs) forEachBlockScale(info.shape, bs, put);
      else for (let i = 0; i < n; i++) put(i, 1);
      return out;
    }
    default:
      throw new MlaDiffError(
        'unsupported-dtype',
        `${name} is ${info.dtype}; bounds exist for F32, F16, BF16, F8_E4M3`,
        { file: info.file, field: name },
        'only the dtypes our writer produces have a bound',
      );
  }
}
