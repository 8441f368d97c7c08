import { parseMatrixText } from './matrix';
import { inShard, parseShard } from './shard';
import { thrownCode } from '../../test-utils/errors';

const code = thrownCode;

describe('--shard i/n', () => {
  it('parses 1-based i/n', () => {
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
  });

  it.each(['0/2', '3/2', '1/0', 'a/b', '1', '1/2/3', '-1/2', ''])('rejects "%s" as a usage error', (s) => {
    expect(code(() => parseShard(s))).toBe('usage');
  });

  it('the shards i/n for i = 1..n are disjoint and together the whole matrix', () => {
    const m = parseMatrixText(
      'format: mla-diff/sweep\nversion: 1\nname: s\nbase: {model: {preset: tiny}, prompt: {length: 3}, reference: off}\n' +
        'axes:\n  seed: [0, 1, 2, 3, 4, 5, 6]\n  tokens: [2, 3, 5]',
      's.yaml',
    );
    expect(m.points).toHaveLength(21);
    for (let n = 1; n <= 8; n++) {
      const shards = Array.from({ length: n }, (_, i) =>
        m.points.filter((p) => inShard(p.index, { index: i + 1, count: n })).map((p) => p.id),
      );
      const all = shards.flat();
      expect(all).toHaveLength(m.points.length);
      expect(new Set(all)).toEqual(new Set(m.points.map((p) => p.id)));
      // Round-robin: shard sizes differ by at most one.
      expect(Math.max(...shards.map((s) => s.length)) - Math.min(...shards.map((s) => s.length))).toBeLessThanOrEqual(1);
    }
    expect(m.points.filter((p) => inShard(p.index, null))).toHaveLength(21);
  });
});
