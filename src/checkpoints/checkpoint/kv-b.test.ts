import { mergeKvB, splitKvB } from './kv-b';

const d = { heads: 2, nope: 3, v: 2, rank: 4 };
/** kv_b row r, column l holds 100·r + l: every entry names its own position. */
const kvB = Float32Array.from({ length: 2 * 5 * 4 }, (_, i) => 100 * Math.floor(i / 4) + (i % 4));

describe('kv_b_proj ↔ attn_k_b / attn_v_b', () => {
  it('splits as the converter does: k_b[h][l][p] = kv_b[h·(P+V)+p][l], v_b[h][i][l] = kv_b[h·(P+V)+P+i][l]', () => {
    const { kB, vB } = splitKvB(kvB, d);
    // head 1, latent column 2, nope row 1 → kv_b row 1·5 + 1 = 6 → 602
    expect(kB[(1 * 4 + 2) * 3 + 1]).toBe(602);
    // head 1, v row 1, column 3 → kv_b row 1·5 + 3 + 1 = 9 → 903
    expect(vB[(1 * 2 + 1) * 4 + 3]).toBe(903);
    expect(kB.length).toBe(2 * 4 * 3);
  });
  it('merge is the exact inverse of split', () => {
    const { kB, vB } = splitKvB(kvB, d);
    expect(Array.from(mergeKvB(kB, vB, d))).toEqual(Array.from(kvB));
  });
  it('the wrong-axis fault scrambles the K rows and leaves the V rows intact', () => {
    const { kB, vB } = splitKvB(kvB, d);
    const bad = mergeKvB(kB, vB, d, 'k-b-wrong-axis');
    const rows = (a: Float32Array, r: number) => Array.from(a.subarray(r * 4, r * 4 + 4));
    expect(rows(bad, 0)).not.toEqual(rows(kvB, 0)); // k row of head 0
    expect(rows(bad, 3)).toEqual(rows(kvB, 3)); // v row of head 0
    expect(rows(bad, 9)).toEqual(rows(kvB, 9)); // v row of head 1
    expect([...bad].sort()).toEqual([...kvB].sort()); // same values, wrong places
  });
});
