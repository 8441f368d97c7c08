import { mergeReports } from './merge';
import type { SweepPoint, SweepReport } from './report';
import { summarize, SWEEP_FORMAT, SWEEP_VERSION, sweepExit } from './report';
import type { ShardSpec } from './shard';
import { inShard } from './shard';
import { thrownCode } from '../../test-utils/errors';

/** Shard reports of a 5-point matrix: points agree and meet `agree`, except those in `unmet`. */
const point = (index: number, met = true): SweepPoint => ({
  index,
  id: `seed=${index}`,
  axes: { seed: index },
  device: 'cpu',
  verdict: met ? 'agree' : 'diverge',
  firstDivergence: null,
  culprit: null,
  expect: { outcome: 'agree' },
  met,
  misses: met ? [] : ['outcome diverge, expected agree'],
  cases: [],
  error: null,
  seconds: 1,
});
function shard(spec: ShardSpec | null, hash = 'h1', unmet: number[] = []): SweepReport {
  const points = [0, 1, 2, 3, 4].filter((i) => inShard(i, spec)).map((i) => point(i, !unmet.includes(i)));
  return {
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    tool: { name: 'mla-diff', version: 't' },
    created: 'now',
    matrix: { name: 'm', file: 'm.yaml', hash, points: 5 },
    shard: spec,
    missing: [],
    points,
    summary: summarize(points),
    seconds: points.length,
  };
}
const files = (...rs: unknown[]) => rs.map((report, i) => ({ file: `s${i}.json`, report }));
const opts = { allowMissing: false, toolVersion: 't' };
const code = thrownCode;

describe('merge', () => {
  it('joins the shards into the unsharded point list, in index order', () => {
    const whole = shard(null);
    const m = mergeReports(files(shard({ index: 2, count: 3 }), shard({ index: 1, count: 3 }), shard({ index: 3, count: 3 })), opts);
    expect(m.points).toEqual(whole.points);
    expect(m.summary).toEqual(whole.summary);
    expect(m.merged).toEqual([
      { index: 2, count: 3 },
      { index: 1, count: 3 },
      { index: 3, count: 3 },
    ]);
    expect(m.shard).toBeNull();
    expect(sweepExit(m)).toBe(0);
  });

  it('a point that missed its expectation makes the merged exit 1', () => {
    const m = mergeReports(files(shard({ index: 1, count: 2 }, 'h1', [2]), shard({ index: 2, count: 2 })), opts);
    expect(m.summary).toEqual({ points: 5, met: 4, unmet: 1, errors: 0 });
    expect(sweepExit(m)).toBe(1);
  });

  it('refuses shards of another matrix, a point twice, and files that are no sweep report', () => {
    expect(code(() => mergeReports(files(shard({ index: 1, count: 2 }), shard({ index: 2, count: 2 }, 'h2')), opts))).toBe(
      'sweep-mismatch',
    );
    expect(
      code(() => mergeReports(files(shard({ index: 1, count: 2 }), shard({ index: 1, count: 2 }), shard({ index: 2, count: 2 })), opts)),
    ).toBe('sweep-mismatch');
    expect(code(() => mergeReports(files({ format: 'mla-diff/run', version: 4 }), opts))).toBe('sweep-mismatch');
    expect(code(() => mergeReports(files(null), opts))).toBe('sweep-mismatch');
    expect(code(() => mergeReports(files({ ...shard(null), version: 99 }), opts))).toBe('sweep-mismatch');
    expect(code(() => mergeReports([], opts))).toBe('usage');
  });

  it('missing points: an error, or with allowMissing listed and exit 1', () => {
    expect(code(() => mergeReports(files(shard({ index: 1, count: 2 })), opts))).toBe('sweep-incomplete');
    const m = mergeReports(files(shard({ index: 1, count: 2 })), { ...opts, allowMissing: true });
    expect(m.missing).toEqual(['#1', '#3']);
    expect(sweepExit(m)).toBe(1);
  });

  it('a worker that failed: its exit code wins', () => {
    const r = shard(null);
    r.points[1] = { ...r.points[1]!, met: false, verdict: 'error', error: { exit: 2, message: '[device-unavailable] no webgpu' } };
    r.summary = summarize(r.points);
    expect(r.summary.errors).toBe(1);
    expect(sweepExit(r)).toBe(2);
  });
});
