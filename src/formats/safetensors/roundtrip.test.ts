import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { E4M3_TABLE, openSafetensors, readTensorF32, readWeightF32, weightBoundF32, writeSafetensors } from './index';
import { tempDir } from './test-utils/files';
import { blockAbsmax, testMatrix } from './test-utils/matrix';

// 300×200 is not a multiple of 128: the scale grid is 3×2 with partial blocks at the right and bottom.
const M = 300;
const N = 200;
const X = testMatrix(M, N, 11, [2, 1]); // block (2,1) (rows 256..299, cols 128..199) all zero
const V = new Float32Array([0.1, -7, 1e-30, 65504, 70000, 3.4e38]);
const t = tempDir();
afterAll(t.cleanup);
const path = join(t.dir, 'rt.safetensors');
writeSafetensors(
  path,
  [
    { name: 'w.f32', dtype: 'F32', shape: [M, N], data: X },
    { name: 'w.f16', dtype: 'F16', shape: [M, N], data: X },
    { name: 'w.bf16', dtype: 'BF16', shape: [M, N], data: X },
    { name: 'w.fp8', dtype: 'F8_E4M3', shape: [M, N], data: X },
    { name: 'v.f16', dtype: 'F16', shape: [V.length], data: V },
  ],
  { format: 'pt' },
);
const m = openSafetensors(path);

/** Every |x - read| ≤ bound; returns the largest error/bound ratio (how tight the bound is). */
function checkWithinBound(name: string, x: Float32Array): number {
  const got = readWeightF32(m, name);
  const bound = weightBoundF32(m, name);
  expect(got.length).toBe(x.length);
  let worst = 0;
  let bad = 0;
  for (let i = 0; i < x.length; i++) {
    const err = Math.abs(x[i]! - got[i]!);
    if (!(err <= bound[i]!)) bad++;
    if (bound[i]! > 0) worst = Math.max(worst, err / bound[i]!);
  }
  expect(bad).toBe(0);
  return worst;
}

describe('write → read round trip', () => {
  it('writes the header in the given order, padded with spaces to a multiple of 8', () => {
    const b = readFileSync(path);
    const n = Number(b.readBigUInt64LE(0));
    expect(n % 8).toBe(0);
    const text = b.toString('utf8', 8, 8 + n);
    expect(/^\{.*\} *$/.test(text)).toBe(true);
    expect(Object.keys(JSON.parse(text))).toEqual(['__metadata__', 'w.f32', 'w.f16', 'w.bf16', 'w.fp8', 'w.fp8_scale_inv', 'v.f16']);
    expect(m.metadata).toEqual({ format: 'pt' });
    expect(m.tensors.get('w.fp8_scale_inv')).toMatchObject({ dtype: 'F32', shape: [3, 2], bytes: 24 });
    expect(m.totalBytes).toBe(M * N * (4 + 2 + 2 + 1) + 24 + V.length * 2);
  });

  it('F32 is exact, bound 0', () => {
    const got = readTensorF32(m, 'w.f32');
    expect(Buffer.from(got.buffer).equals(Buffer.from(X.buffer))).toBe(true);
    expect(weightBoundF32(m, 'w.f32').every((b) => b === 0)).toBe(true);
  });

  it('F16 and BF16: every error within half an ulp, and the bound is attained', () => {
    expect(checkWithinBound('w.f16', X)).toBeGreaterThan(0.9);
    expect(checkWithinBound('w.bf16', X)).toBeGreaterThan(0.9);
    // 65504 is f16 max (exact); 70000 and 3.4e38 overflow to Inf: bound Infinity; 1e-30 flushes to 0 within 2^-25.
    expect([...readTensorF32(m, 'v.f16')].slice(2)).toEqual([0, 65504, Infinity, Infinity]);
    checkWithinBound('v.f16', V);
  });

  it('FP8 scales are absmax/448 per block (partial blocks included), 1 for the all-zero block', () => {
    const amax = blockAbsmax(X, M, N);
    const want = amax.map((a) => (a === 0 ? 1 : Math.fround(a / 448)));
    expect([...readTensorF32(m, 'w.fp8_scale_inv')]).toEqual(want);
    expect(want[5]).toBe(1);
    expect(new Set(want).size).toBe(6); // all blocks differ, so a block mix-up shows
    // Raw E4M3 values: each non-zero block's largest element maps to ±448.
    const q = readTensorF32(m, 'w.fp8');
    expect(q.every((v) => E4M3_TABLE.includes(v))).toBe(true);
    expect(blockAbsmax(q, M, N)).toEqual(amax.map((a) => (a === 0 ? 0 : 448)));
  });

  it('FP8: every error within the bound; the bound matches 3 mantissa bits', () => {
    expect(checkWithinBound('w.fp8', X)).toBeGreaterThan(0.9);
    // 3 mantissa bits: in the binade [2^e, 2^(e+1)) values are 2^(e-3) apart, so rounding errs by ≤ 2^(e-4) ≤ 2^-4·|x|.
    // The largest quantized magnitude is 448 = 1.75·2^8 (e=8), half spacing 2^4 = 448·2^-4/1.75; times s = absmax/448:
    // bound ≤ absmax·2^-4/1.75 per block. SLACK covers the float32 terms: s = fround(absmax/448) is up to 2^-24
    // above absmax/448, and the bound adds 2^-23·(|w| + h·s) where |w|/(h·s) ≤ 30 for normal values: ≤ 31·2^-23 < 2^-17.
    const REL_ABSMAX = 2 ** -4 / 1.75;
    const SLACK = 1 + 2 ** -17;
    const amax = blockAbsmax(X, M, N);
    const bound = weightBoundF32(m, 'w.fp8');
    const got = readWeightF32(m, 'w.fp8');
    let normal = 0;
    let overAbsmax = 0;
    let overRel = 0;
    for (let r = 0; r < M; r++) {
      for (let c = 0; c < N; c++) {
        const i = r * N + c;
        const k = Math.floor(r / 128) * 2 + Math.floor(c / 128);
        const s = amax[k] === 0 ? 1 : Math.fround(amax[k]! / 448);
        if (amax[k]! > 0 && !(bound[i]! <= amax[k]! * REL_ABSMAX * SLACK)) overAbsmax++;
        if (Math.abs(X[i]!) / s >= 2 ** -6) {
          // E4M3 normal range: relative error ≤ 2^-4
          normal++;
          if (!(Math.abs(X[i]! - got[i]!) <= 2 ** -4 * Math.abs(X[i]!) * SLACK)) overRel++;
        }
      }
    }
    expect([overAbsmax, overRel]).toEqual([0, 0]);
    expect(normal).toBeGreaterThan(M * N * 0.7);
    // The all-zero block reads back as exact zeros.
    expect(got[280 * N + 150]).toBe(0);
  });

  it('block indexing matters: a transposed scale grid (vLLM #47115) gives other, out-of-bound values', () => {
    const q = readTensorF32(m, 'w.fp8');
    const s = readTensorF32(m, 'w.fp8_scale_inv'); // [3, 2]
    // The bug: transpose to [2, 3] (s00 s10 s20 s01 s11 s21), then reinterpret as [3, 2].
    const swapped = [s[0]!, s[2]!, s[4]!, s[1]!, s[3]!, s[5]!];
    const good = readWeightF32(m, 'w.fp8');
    const bound = weightBoundF32(m, 'w.fp8');
    let differ = 0;
    let outside = 0;
    for (let r = 0; r < M; r++) {
      for (let c = 0; c < N; c++) {
        const i = r * N + c;
        const buggy = Math.fround(q[i]! * swapped[Math.floor(r / 128) * 2 + Math.floor(c / 128)]!);
        if (buggy !== good[i]) differ++;
        if (Math.abs(buggy - X[i]!) > bound[i]!) outside++;
      }
    }
    // Only block (0,0) and (2,1) keep their scale under the swap; (2,1) is all zero anyway.
    expect(differ).toBeGreaterThan(M * N * 0.5);
    expect(outside).toBeGreaterThan(M * N * 0.5);
  });

  it('reads a row range of every dtype', () => {
    expect(readTensorF32(m, 'w.f32', [5, 7])).toEqual(X.subarray(5 * N, 7 * N));
    expect(readTensorF32(m, 'w.bf16', [299, 300])).toEqual(readTensorF32(m, 'w.bf16').subarray(299 * N));
    expect(readTensorF32(m, 'w.fp8', [130, 131])).toEqual(readTensorF32(m, 'w.fp8').subarray(130 * N, 131 * N));
  });
});
