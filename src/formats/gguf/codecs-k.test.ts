import { isMlaDiffError } from '../../errors';
import { K_CODECS } from './codecs-k';
import { GGML_TYPES, type Codec, type GgmlType } from './ggml-types';

/**
 * Grid geometry per type, as the a-priori efficiency bound below needs it. Affine: q ∈ 0..nmax, offset
 * dmin·m ≥ 0. Symmetric: q ∈ −qneg..qpos (IQ4_XS in units of its grid, −127..113). kMax: largest sub-scale
 * magnitude our quantizer uses; half: bound = half·|sub-block step| (12 for IQ4_XS: its widest gap is 24).
 */
const SPECS: { type: GgmlType; size: number; affine: boolean; qneg: number; qpos: number; kMax: number; half: number }[] = [
  { type: 'Q2_K', size: 16, affine: true, qneg: 0, qpos: 3, kMax: 15, half: 0.5 },
  { type: 'Q3_K', size: 16, affine: false, qneg: 4, qpos: 3, kMax: 31, half: 0.5 },
  { type: 'Q4_K', size: 32, affine: true, qneg: 0, qpos: 15, kMax: 63, half: 0.5 },
  { type: 'Q5_K', size: 32, affine: true, qneg: 0, qpos: 31, kMax: 63, half: 0.5 },
  { type: 'Q6_K', size: 16, affine: false, qneg: 32, qpos: 31, kMax: 127, half: 0.5 },
  { type: 'IQ4_XS', size: 32, affine: false, qneg: 127, qpos: 113, kMax: 31, half: 12 },
];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const N = 1024; // four super-blocks
const gen = (seed: number, f: (u: () => number, i: number) => number): Float32Array => {
  const u = rng(seed);
  return Float32Array.from({ length: N }, (_, i) => f(u, i));
};
const normal = (u: () => number): number => u() + u() + u() + u() - 2;

/** Data sets; `efficient: false` where d falls into f16 subnormals and the efficiency bound does not apply. */
const DATA: { name: string; x: Float32Array; efficient: boolean }[] = [
  { name: 'normal-ish', x: gen(1, (u) => 0.05 * normal(u)), efficient: true },
  { name: 'uniform', x: gen(2, (u) => 8 * u() - 3), efficient: true },
  { name: 'all-equal', x: gen(3, () => 0.7), efficient: true },
  { name: 'all-equal negative', x: gen(4, () => -0.7), efficient: true },
  { name: 'all-zero', x: new Float32Array(N), efficient: true },
  { name: 'negative-only', x: gen(5, (u) => -(0.5 + 1.5 * u())), efficient: true },
  { name: 'positive-only', x: gen(6, (u) => 0.5 + 1.5 * u()), efficient: true },
  { name: 'one large outlier', x: gen(7, (u, i) => (i === 137 ? 1000 : i === 700 ? -250 : normal(u))), efficient: true },
  { name: 'sub-block magnitudes 2^-6..2^5', x: gen(8, (u, i) => normal(u) * 2 ** (((i >> 4) % 12) - 6)), efficient: true },
  { name: 'tiny (subnormal f16 scales)', x: gen(9, (u) => 1e-6 * normal(u)), efficient: false },
];

const codec = (t: GgmlType): Codec => K_CODECS[t]!;

function roundTrip(t: GgmlType, x: Float32Array): { q: Uint8Array; y: Float32Array; b: Float32Array } {
  const c = codec(t);
  const q = new Uint8Array((x.length / 256) * GGML_TYPES[t].bytes);
  c.quantize(x, 0, x.length, q, 0);
  const y = new Float32Array(x.length);
  c.dequantize(q, 0, y, 0, x.length);
  const b = new Float32Array(x.length);
  c.bound(q, 0, b, 0, x.length);
  return { q, y, b };
}

/**
 * The largest bound a sub-block may get, from the data alone. Per sub-block, `need` is the least step
 * whose grid covers it: affine (hi − min(lo, 0) + one min-quantum)/nmax, the min's ceil overshooting by at
 * most one quantum dmin ≤ max(−lo)/kMax; symmetric, the better sign of max(−lo/qneg, hi/qpos). The
 * sub-scale ceil adds at most one quantum d ≤ max(need)/kMax, and d, dmin are f16 rounded up (≤ 2^-10,
 * and one more f16 step at most: slack 2^-9). 2^-18·max|x| covers the float32 rounding term of the bound.
 */
function allowed(s: (typeof SPECS)[number], x: Float32Array, at: number): Float64Array {
  const nsub = 256 / s.size;
  const lo = new Float64Array(nsub);
  const hi = new Float64Array(nsub);
  let amax = 0;
  for (let j = 0; j < nsub; j++) {
    const v = x.subarray(at + j * s.size, at + (j + 1) * s.size);
    lo[j] = Math.min(...v);
    hi[j] = Math.max(...v);
    amax = Math.max(amax, -lo[j]!, hi[j]!);
  }
  const slack = 1 + 2 ** -9;
  const minQuantum = (Math.max(0, ...[...lo].map((l) => -l)) / s.kMax) * slack;
  const need = [...lo].map((l, j) => {
    const h = hi[j]!;
    if (s.affine) return (h - Math.min(l, 0) + minQuantum) / s.qpos;
    const neg = Math.max(0, -l);
    const pos = Math.max(0, h);
    return Math.min(Math.max(neg / s.qneg, pos / s.qpos), Math.max(pos / s.qneg, neg / s.qpos));
  });
  const quantum = (Math.max(...need) / s.kMax) * slack;
  return Float64Array.from(need, (nd) => s.half * (nd + quantum) * (1 + 2 ** -20) + amax * 2 ** -18);
}

describe.each(SPECS)('$type quantize → dequantize', (s) => {
  it.each(DATA)('$name: every |x − y| ≤ bound, and bound ≤ the a-priori step', ({ x, efficient }) => {
    const { y, b } = roundTrip(s.type, x);
    const over: string[] = [];
    const wasteful: string[] = [];
    for (let i = 0; i < N; i++) {
      if (!(Math.abs(x[i]! - y[i]!) <= b[i]!)) over.push(`${i}: x ${x[i]} y ${y[i]} bound ${b[i]}`);
    }
    for (let at = 0; efficient && at < N; at += 256) {
      const a = allowed(s, x, at);
      for (let i = 0; i < 256; i++) if (!(b[at + i]! <= a[Math.floor(i / s.size)]!)) wasteful.push(`${at + i}: ${b[at + i]}`);
    }
    expect(over.slice(0, 5)).toEqual([]);
    expect(wasteful.slice(0, 5)).toEqual([]);
    if (x.every((v) => v === 0)) expect(y.every((v) => v === 0) && b.every((v) => v === 0)).toBe(true);
  });

  it('is deterministic, overwrites every byte, stays in its window and is stable on its own output', () => {
    const x = DATA[7]!.x;
    const c = codec(s.type);
    const bytes = (N / 256) * GGML_TYPES[s.type].bytes;
    const a = new Uint8Array(bytes + 8).fill(0x00);
    const z = new Uint8Array(bytes + 8).fill(0xff);
    c.quantize(x, 0, N, a, 4);
    c.quantize(x, 0, N, z, 4);
    expect(a.subarray(4, 4 + bytes)).toEqual(z.subarray(4, 4 + bytes));
    expect([...a.subarray(0, 4), ...a.subarray(4 + bytes)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect([...z.subarray(0, 4), ...z.subarray(4 + bytes)]).toEqual(Array(8).fill(0xff));
    const { q, y } = roundTrip(s.type, x);
    const again = new Float32Array(N);
    c.dequantize(q, 0, again, 0, N);
    expect(Buffer.from(again.buffer)).toEqual(Buffer.from(y.buffer));
    const second = roundTrip(s.type, y); // requantizing our own output keeps within its bound
    expect(y.filter((v, i) => !(Math.abs(v - second.y[i]!) <= second.b[i]!)).length).toBe(0);
  });

  it('rejects non-finite input, values beyond f16 scales, and partial super-blocks', () => {
    const c = codec(s.type);
    const code = (f: () => void): string | undefined => {
      try {
        f();
      } catch (e) {
        return isMlaDiffError(e) ? e.code : String(e);
      }
      return undefined;
    };
    const out = new Uint8Array(GGML_TYPES[s.type].bytes);
    for (const bad of [NaN, Infinity, 1e9]) {
      const x = new Float32Array(256);
      x[77] = bad;
      expect(code(() => c.quantize(x, 0, 256, out, 0))).toBe('invalid-value');
    }
    expect(code(() => c.quantize(new Float32Array(128), 0, 128, out, 0))).toBe('tensor-shape');
    expect(code(() => c.dequantize(out, 0, new Float32Array(128), 0, 128))).toBe('tensor-shape');
  });
});
