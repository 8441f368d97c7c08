import { isMlaDiffError } from '../../errors';
import { f16CeilBits } from './codecs-legacy-scales';
import { chooseScales, fillBound, minK4, packQ3Scales, packScaleMinK4, scaleK4, unpackQ3Scales } from './kquant-scales';

/** Hand-built Q4_K/Q5_K scales: sc = [1,2,3,4,17,33,50,63], m = [0,1,2,3,20,40,5,63]. */
const SC = [1, 2, 3, 4, 17, 33, 50, 63];
const M = [0, 1, 2, 3, 20, 40, 5, 63];
// bytes 0..3: sc[j] | (sc[j+4]>>4)<<6  = 1|1<<6, 2|2<<6, 3|3<<6, 4|3<<6
// bytes 4..7: m[j]  | (m[j+4]>>4)<<6   = 0|1<<6, 1|2<<6, 2|0<<6, 3|3<<6
// bytes 8..11: (sc[j+4]&15) | (m[j+4]&15)<<4 = 1|4<<4, 1|8<<4, 2|5<<4, 15|15<<4
const K4_BYTES = [65, 130, 195, 196, 64, 129, 2, 195, 65, 129, 82, 255];

/** Hand-built Q3_K scales: raw 6-bit values; the signed scale is raw − 32. */
const Q3_RAW = [0, 1, 31, 32, 33, 63, 10, 50, 5, 17, 40, 48, 60, 2, 35, 29];
// bytes 0..7: (raw[j]&15) | (raw[j+8]&15)<<4; bytes 8+i: Σ_k (raw[4k+i]>>4) << 2k
const Q3_BYTES = [
  0x50,
  0x11,
  0x8f,
  0x00,
  0xc1,
  0x2f,
  0x3a,
  0xd2,
  0 | (2 << 2) | (0 << 4) | (3 << 6),
  0 | (3 << 2) | (1 << 4) | (0 << 6),
  1 | (0 << 2) | (2 << 4) | (2 << 6),
  2 | (3 << 2) | (3 << 4) | (1 << 6),
];

describe('K-quant sub-scales', () => {
  it('get_scale_min_k4 reads the hand-built 12 bytes (j ≥ 4 takes its top bits from q[j-4] and q[j])', () => {
    const q = Uint8Array.from([9, ...K4_BYTES]); // at offset 1
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((j) => scaleK4(q, 1, j))).toEqual(SC);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((j) => minK4(q, 1, j))).toEqual(M);
  });

  it('packScaleMinK4 writes exactly those bytes', () => {
    const q = new Uint8Array(12).fill(0xee);
    packScaleMinK4(SC, M, q, 0);
    expect([...q]).toEqual(K4_BYTES);
  });

  it('the Q3_K aux-word unpack gives raw − 32 for the hand-built bytes, and the pack writes them', () => {
    const out = new Int32Array(16);
    unpackQ3Scales(Uint8Array.from([1, 2, ...Q3_BYTES]), 2, out);
    expect([...out]).toEqual(Q3_RAW.map((r) => r - 32));
    const b = new Uint8Array(12).fill(0xff);
    packQ3Scales(
      Q3_RAW.map((r) => r - 32),
      b,
      0,
    );
    expect([...b]).toEqual(Q3_BYTES);
  });

  it('Q3_K pack ∘ unpack is the identity for every value at every position', () => {
    const s = new Int32Array(16);
    const b = new Uint8Array(12);
    const out = new Int32Array(16);
    for (let j = 0; j < 16; j++) {
      for (let v = -32; v < 32; v++) {
        for (let i = 0; i < 16; i++) s[i] = ((((i * 23 + v * 7) % 64) + 64) % 64) - 32;
        s[j] = v;
        packQ3Scales(s, b, 0);
        unpackQ3Scales(b, 0, out);
        expect(out).toEqual(s);
      }
    }
  });

  it('K4 pack ∘ unpack is the identity for every value at every position', () => {
    const q = new Uint8Array(12);
    for (let j = 0; j < 8; j++) {
      for (let v = 0; v < 64; v++) {
        const sc = SC.map((x, i) => (i === j ? v : x));
        const m = M.map((x, i) => (i === j ? 63 - v : x));
        packScaleMinK4(sc, m, q, 0);
        expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => scaleK4(q, 0, i))).toEqual(sc);
        expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => minK4(q, 0, i))).toEqual(m);
      }
    }
  });
});

describe('super-scale search', () => {
  it('f16CeilBits rounds up to the next binary16 and rejects overflow', () => {
    // 0.1 is between the f16 values 0.0999755859375 and that + 2^-14
    expect(f16CeilBits(0.1)).toBe(0x2e67);
    expect(f16CeilBits(1)).toBe(0x3c00);
    expect(f16CeilBits(0)).toBe(0);
    expect(f16CeilBits(1e-9)).toBe(1); // the smallest subnormal, 2^-24
    try {
      f16CeilBits(70000);
      throw new Error('no throw');
    } catch (e) {
      expect(isMlaDiffError(e) && e.code).toBe('invalid-value');
    }
  });

  it('chooseScales: least d ≥ max/kMax, least k with k·d ≥ need', () => {
    const k = new Int32Array(4);
    expect(chooseScales(Float64Array.of(0, 1, 2.5, 63), 4, 63, k)).toBe(0x3c00); // d = 1
    expect([...k]).toEqual([0, 1, 3, 63]);
    // max need 0.1·31 = 3.1 → d ≥ 0.1 → d = 0.0999755859375 + 2^-14
    const h = chooseScales(Float64Array.of(3.1, 0.05, 0.2, 0), 4, 31, k);
    const d = 0.0999755859375 + 2 ** -14;
    expect(h).toBe(0x2e67);
    expect([...k]).toEqual([31, 1, 2, 0]); // 0.05/d ≈ 0.5 → 1; 0.2/d ≈ 1.998 → 2
    expect(31 * d).toBeGreaterThanOrEqual(3.1);
    expect(chooseScales(new Float64Array(4), 4, 15, k)).toBe(0);
    expect([...k]).toEqual([0, 0, 0, 0]);
  });

  it('fillBound stores at least half + gridMax·2^-23 in float32', () => {
    const dst = new Float32Array(3);
    const half = 1 / 3;
    fillBound(dst, 1, 2, half, 10);
    expect(dst[0]).toBe(0);
    expect(dst[1]).toBeGreaterThanOrEqual(half + 10 * 2 ** -23);
    expect(dst[2]).toBeLessThan(half * (1 + 2 ** -20) + 10 * 2 ** -22);
  });
});
