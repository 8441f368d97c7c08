import { preset } from '../model/presets';
import { linearShape, LINEAR_NAMES, NORM_NAMES, sliceRanges } from './layer';
import { fillNormal, inverseNormalCdf, normalAt, streamKey } from './normal';
import { EMBEDDING_STD, SyntheticWeights } from './synthetic';

describe('counter-based normal samples', () => {
  it('inverse normal CDF matches known quantiles', () => {
    expect(inverseNormalCdf(0.5)).toBeCloseTo(0, 12);
    expect(inverseNormalCdf(0.975)).toBeCloseTo(1.959964, 5);
    expect(inverseNormalCdf(0.001)).toBeCloseTo(-3.090232, 5);
  });

  it('has unit variance, zero mean, near-normal kurtosis', () => {
    const n = 1 << 20;
    const x = new Float32Array(n);
    fillNormal(x, 0, 1, n, streamKey(1, 'test'), 0, 1, 1, 0);
    let m = 0,
      m2 = 0,
      m4 = 0;
    for (const v of x) {
      m += v;
      m2 += v * v;
      m4 += v ** 4;
    }
    expect(Math.abs(m / n)).toBeLessThan(5e-3);
    expect(m2 / n).toBeCloseTo(1, 2);
    expect(m4 / n / (m2 / n) ** 2).toBeGreaterThan(2.8);
  });

  it('depends only on (key, index): fill order and stride do not matter', () => {
    const key = streamKey(3, 'w');
    const a = new Float32Array(10);
    fillNormal(a, 0, 1, 10, key, 100, 7, 1, 0);
    for (let k = 0; k < 10; k++) expect(a[k]).toBe(Math.fround(normalAt(key, 100 + 7 * k)));
  });

  it('different seeds and names give different streams', () => {
    expect(streamKey(0, 'q_a_proj')).not.toBe(streamKey(1, 'q_a_proj'));
    expect(streamKey(0, 'q_a_proj')).not.toBe(streamKey(0, 'q_b_proj'));
  });
});

describe('SyntheticWeights', () => {
  const c = preset('tiny');
  const w = new SyntheticWeights(c, 0);

  it.each(LINEAR_NAMES)('%s has RMS ≈ 1/sqrt(fan_in) and is deterministic', (name) => {
    const [out, inp] = linearShape(c, name);
    const a = new Float32Array(out * inp);
    w.block(name, [0, out], [0, inp], 'out_in', a);
    const rms = Math.sqrt(a.reduce((s, v) => s + v * v, 0) / a.length);
    expect(rms * Math.sqrt(inp)).toBeGreaterThan(0.85);
    expect(rms * Math.sqrt(inp)).toBeLessThan(1.15);
    const b = new Float32Array(out * inp);
    new SyntheticWeights(c, 0).block(name, [0, out], [0, inp], 'out_in', b);
    expect(b).toEqual(a);
  });

  it('the in_out layout is the transpose of out_in, and sub-blocks are slices of the whole', () => {
    const [out, inp] = linearShape(c, 'o_proj');
    const oi = new Float32Array(out * inp);
    const io = new Float32Array(out * inp);
    w.block('o_proj', [0, out], [0, inp], 'out_in', oi);
    w.block('o_proj', [0, out], [0, inp], 'in_out', io);
    for (let r = 0; r < out; r++) for (let k = 0; k < inp; k++) expect(io[k * out + r]).toBe(oi[r * inp + k]);
    const { rows, cols } = sliceRanges(c, 'o_proj', { start: 1, count: 2 });
    const sub = new Float32Array((rows[1] - rows[0]) * (cols[1] - cols[0]));
    w.block('o_proj', rows, cols, 'out_in', sub);
    const width = cols[1] - cols[0];
    for (let r = rows[0]; r < rows[1]; r++)
      for (let k = cols[0]; k < cols[1]; k++) {
        expect(sub[(r - rows[0]) * width + (k - cols[0])]).toBe(oi[r * inp + k]);
      }
  });

  it.each(NORM_NAMES)('%s weights are close to one', (name) => {
    const v = w.norm(name);
    for (const x of v) expect(Math.abs(x - 1)).toBeLessThan(0.3);
    expect(v.some((x) => x !== 1)).toBe(true);
  });

  it('embeddings are generated per id, on demand', () => {
    const e = w.embeddings([5, 9, 5]);
    const H = c.hidden_size;
    expect(e.length).toBe(3 * H);
    expect(e.subarray(0, H)).toEqual(e.subarray(2 * H, 3 * H));
    expect(e.subarray(0, H)).not.toEqual(e.subarray(H, 2 * H));
    const rms = Math.sqrt(e.reduce((s, v) => s + v * v, 0) / e.length);
    expect(rms / EMBEDDING_STD).toBeCloseTo(1, 0);
  });

  it('generates GLM-5 rows by index without building the layer (id near the vocab end)', () => {
    const g = new SyntheticWeights(preset('glm-5'), 0);
    const e = g.embeddings([154_879]);
    expect(e.length).toBe(6144);
    expect(Number.isFinite(e[6143]!)).toBe(true);
  });
});
