import { parseLayout, toCanonical } from './layout-map';
import { recordDims, stageShape } from './shapes';
import { PRESETS } from '../../core/model/presets';

describe('parseLayout', () => {
  it.each([
    ['t h v', [['t'], ['h'], ['v']]],
    ['t (h v)', [['t'], ['h', 'v']]],
    ['t hv', [['t'], ['h', 'v']]],
    ['(t h) v', [['t', 'h'], ['v']]],
  ])('%s', (text, groups) => expect(parseLayout(text)).toEqual(groups));
  it.each(['t (h (v))', 't (h v', 't h)', 't ()', 't t', '', 't h-v'])('refuses "%s" with a reason', (text) =>
    expect(typeof parseLayout(text)).toBe('string'),
  );
});

describe('toCanonical', () => {
  // [T=2, N=3, V=2] values x[t][h][v] = 100t + 10h + v
  const T = 2,
    N = 3,
    V = 2;
  const thv = Float64Array.from({ length: T * N * V }, (_, i) => 100 * Math.floor(i / (N * V)) + 10 * (Math.floor(i / V) % N) + (i % V));

  it('"t (h v)" [T, N·V] is a reshape of canonical "t h v"', () => {
    const r = toCanonical(thv, [T, N * V], 't (h v)', 't h v', [T, N, V], {});
    expect(typeof r !== 'string' && Array.from(r.data)).toEqual(Array.from(thv));
  });

  it('"h t v" is permuted to "t h v"; LSE "t h" to "h t"', () => {
    const htv = new Float64Array(thv.length);
    for (let t = 0; t < T; t++)
      for (let h = 0; h < N; h++) for (let v = 0; v < V; v++) htv[(h * T + t) * V + v] = thv[(t * N + h) * V + v]!;
    const r = toCanonical(htv, [N, T, V], 'h t v', 't h v', [T, N, V], {});
    expect(typeof r !== 'string' && Array.from(r.data)).toEqual(Array.from(thv));
    const lse = toCanonical(Float64Array.from([0, 1, 2, 10, 11, 12]), [T, N], 't h', 'h t', [N, T], {});
    expect(typeof lse !== 'string' && Array.from(lse.data)).toEqual([0, 10, 1, 11, 2, 12]);
  });

  it('"t h v" written for canonical "t hv" (attn_out) regroups by the head and v sizes', () => {
    const r = toCanonical(thv, [T, N, V], 't h v', 't hv', [T, N * V], { h: N, v: V });
    expect(typeof r !== 'string' && r.shape).toEqual([T, N * V]);
  });

  it.each([
    ['a wrong dim', [T, N * V + 1], 't (h v)'],
    ['a wrong rank', [T * N * V], 't (h v)'],
    ['an unknown axis', [T, N * V], 't (h x)'],
    ['a missing axis', [T, N], 't h'],
  ])('reports %s', (_what, shape, layout) => expect(typeof toCanonical(thv, shape, layout, 't h v', [T, N, V], {})).toBe('string'));
});

describe('stageShape', () => {
  const c = PRESETS.tiny;
  it('evaluates the ontology shapes for a piece (tiny: N 4, P 16, V 12, L 32, R 8)', () => {
    const d = recordDims(c, { start: 3, count: 5, chunks: [[0, 3]] }, 3, 0);
    expect(stageShape('kv_nope', d)).toEqual([5, 4, 28]);
    expect(stageShape('attn_out', d)).toEqual([5, 48]);
    expect(stageShape('logits', d)).toEqual([4, 5, 8]);
    expect(stageShape('ctx_workspace', d)).toEqual([3, 40]);
    expect(stageShape('split_lse', d)).toEqual([5, 4, 3]);
  });
});
