import { readFileSync } from 'node:fs';
import { openSafetensors, readTensorF32, readWeightF32, weightBoundF32 } from './index';
import { tempDir, writeRaw } from './test-utils/files';

// a: F32 [2] = [1.5, -2]; 1.5 = 0x3FC00000, -2 = 0xC0000000 (little-endian below).
const A_BYTES = [0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0];
// b: BF16 [2, 2] = [[1, -0.5], [3, 0.15625]]: 0x3F80, 0xBF00, 0x4040, 0x3E20 (0.15625 = 1.25·2^-3 = 0x3E200000).
const B_BYTES = [0x80, 0x3f, 0x00, 0xbf, 0x40, 0x40, 0x20, 0x3e];
// The JSON order need not be the offset order; the reader sorts by offsets as the safetensors crate does.
const HEADER =
  '{"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2,2],"data_offsets":[8,16]},' +
  '"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';

describe('reading a hand-written safetensors file', () => {
  const t = tempDir();
  afterAll(t.cleanup);
  const path = writeRaw(t.dir, 'hand.safetensors', HEADER, [...A_BYTES, ...B_BYTES]);
  const n = Math.ceil(HEADER.length / 8) * 8; // 8 + n is where the byte buffer starts

  it('parses the header: offsets absolute, metadata, total bytes', () => {
    expect(readFileSync(path).readBigUInt64LE(0)).toBe(BigInt(n));
    const m = openSafetensors(path);
    expect(m.files).toEqual([path]);
    expect(m.metadata).toEqual({ format: 'pt' });
    expect(m.totalBytes).toBe(16);
    expect(m.tensors.get('a')).toEqual({ name: 'a', dtype: 'F32', shape: [2], file: path, offset: 8 + n, bytes: 8 });
    expect(m.tensors.get('b')).toEqual({ name: 'b', dtype: 'BF16', shape: [2, 2], file: path, offset: 8 + n + 8, bytes: 8 });
  });

  it('reads the values', () => {
    const m = openSafetensors(path);
    expect([...readTensorF32(m, 'a')]).toEqual([1.5, -2]);
    expect([...readTensorF32(m, 'b')]).toEqual([1, -0.5, 3, 0.15625]);
    expect([...readWeightF32(m, 'b')]).toEqual([1, -0.5, 3, 0.15625]); // not FP8: as stored
  });

  it('reads a row range: only those rows', () => {
    const m = openSafetensors(path);
    expect([...readTensorF32(m, 'b', [1, 2])]).toEqual([3, 0.15625]);
    expect([...readTensorF32(m, 'b', [0, 1])]).toEqual([1, -0.5]);
    expect([...readTensorF32(m, 'a', [1, 1])]).toEqual([]);
  });

  it('bounds: 0 for F32, half a bf16 ulp of the stored value', () => {
    const m = openSafetensors(path);
    expect([...weightBoundF32(m, 'a')]).toEqual([0, 0]);
    // bf16 has 7 stored mantissa bits: ulp in [2^e, 2^(e+1)) is 2^(e-7), half of it 2^(e-8).
    expect([...weightBoundF32(m, 'b')]).toEqual([2 ** -8, 2 ** -9, 2 ** -7, 2 ** -11]);
  });

  it('opens the directory holding a single file', () => {
    expect([...openSafetensors(t.dir).tensors.keys()].sort()).toEqual(['a', 'b']);
  });
});

describe('F16 and F8_E4M3 bytes', () => {
  const t = tempDir();
  afterAll(t.cleanup);

  it('decodes F16 and raw E4M3 (no scales: scale 1)', () => {
    const header = {
      h: { dtype: 'F16', shape: [3], data_offsets: [0, 6] },
      q: { dtype: 'F8_E4M3', shape: [4], data_offsets: [6, 10] },
      z: { dtype: 'F32', shape: [0, 5], data_offsets: [10, 10] },
    };
    // F16 1.0 = 0x3C00, -2.5 = 0xC100, 2^-24 = 0x0001 (smallest subnormal); E4M3 0x38=1, 0xC4=-3, 0x01=2^-9, 0x7E=448.
    const path = writeRaw(t.dir, 'f.safetensors', header, [0x00, 0x3c, 0x00, 0xc1, 0x01, 0x00, 0x38, 0xc4, 0x01, 0x7e]);
    const m = openSafetensors(path);
    expect([...readTensorF32(m, 'h')]).toEqual([1, -2.5, 2 ** -24]);
    expect([...readTensorF32(m, 'q')]).toEqual([1, -3, 2 ** -9, 448]);
    expect([...readWeightF32(m, 'q')]).toEqual([1, -3, 2 ** -9, 448]);
    expect([...readTensorF32(m, 'z')]).toEqual([]);
    // f16: 10 mantissa bits → half ulp 2^(e-11); subnormals 2^-25. E4M3: 2^(max(e,1)-11) (+2^-23 relative slack).
    expect([...weightBoundF32(m, 'h')]).toEqual([2 ** -11, 2 ** -10, 2 ** -25]);
    const bq = weightBoundF32(m, 'q');
    const want = [2 ** -4, 2 ** -3, 2 ** -10, 16];
    const vals = [1, 3, 2 ** -9, 448];
    want.forEach((h, i) => {
      expect(bq[i]).toBeGreaterThanOrEqual(h);
      expect(bq[i]).toBeLessThanOrEqual(h + 2 ** -22 * (vals[i]! + h));
    });
  });
});
