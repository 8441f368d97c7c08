import { STAGE_NAMES } from '../../trace/stages';
import { caseResult, normOf } from '../../test-utils/reports';
import { PIECE0 } from '../../test-utils/traces';
import { errOverTolerance, errRows, focusPiece, headRows, normRows, plottedPair } from './html-data';
import { errSpec, headSpec, normSpec } from './html-specs';

describe('HTML report data', () => {
  const c = caseResult({ rel: { lse: { engine: 0.5, mqa: 0.5 } } });

  it('plots the norm every path recorded at every stage, in pipeline order', () => {
    const { rows, dropped } = normRows(c, focusPiece(c)!);
    const recorded = Object.values(c.trace.paths).reduce((n, t) => n + t!.stages.length, 0);
    expect(rows).toHaveLength(recorded);
    expect(dropped).toBe(0);
    const order = rows.map((r) => STAGE_NAMES.indexOf(r.stage as (typeof STAGE_NAMES)[number]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const r of rows) expect(r.norm).toBe(normOf({ step: 0, request: 'prompt', stage: r.stage as (typeof STAGE_NAMES)[number] }));
  });

  it("plots each record's worst pair against its tolerance; exact records are counted, not drawn", () => {
    const { rows, dropped } = errRows(c, PIECE0);
    const lse = rows.find((r) => r.stage === 'lse')!;
    expect(lse).toMatchObject({ relErr: 0.5, tolerance: 1e-5, verdict: 'out-of-tolerance' });
    expect(['mha↔mqa', 'mqa↔reference']).toContain(lse.pair);
    expect(rows.length + dropped).toBe(c.comparison.stages.filter((v) => v.pairs.length).length);
    expect(dropped).toBe(c.comparison.stages.filter((v) => v.pairs.length && v.pairs.every((x) => !x.relErr)).length);
  });

  it('prefers mha↔mqa on a tie of worst pairs', () => {
    const v = c.comparison.stages.find((x) => x.stage === 'lse')!;
    expect(plottedPair(v)).toMatchObject({ a: 'mha', b: 'mqa' });
  });

  it('gives the sparkline log10(err / tolerance) per compared record', () => {
    const values = errOverTolerance(c, PIECE0);
    expect(values).toHaveLength(c.comparison.stages.filter((v) => v.pairs.length).length);
    expect(Math.max(...values.filter(Number.isFinite))).toBeCloseTo(Math.log10(0.5 / 1e-5), 10);
  });

  it('maps per-head errors to absolute head indices and per-token errors to positions', () => {
    expect(headRows(c)).toBeNull(); // no detail
    const d = {
      ...c,
      trace: { ...c.trace, heads: { start: 8, count: 2 } },
      detail: {
        records: [
          {
            step: 0,
            request: 'prompt',
            stage: 'lse' as const,
            a: 'mqa' as const,
            b: 'reference' as const,
            positions: [4, 5, 6],
            perToken: [0.1, 0.2, NaN],
            perHead: [0.3, 0.4],
          },
        ],
        entropy: [],
      },
    };
    const h = headRows(d)!;
    expect(h.rows).toEqual([
      { axis: 'head', index: 8, relErr: 0.3 },
      { axis: 'head', index: 9, relErr: 0.4 },
      { axis: 'token (position)', index: 4, relErr: 0.1 },
      { axis: 'token (position)', index: 5, relErr: 0.2 },
    ]);
    expect(h.dropped).toBe(1);
    expect(h.title).toMatch(/^lse, step 0, request prompt: mqa against reference$/);
  });

  it('builds specs with log scales over the rows', () => {
    const n = normSpec(normRows(c, PIECE0).rows, { text: 'norms' }) as {
      data: { values: unknown[] };
      encoding: { y: { scale: { type: string } } };
    };
    expect(n.encoding.y.scale.type).toBe('log');
    expect(n.data.values).toHaveLength(normRows(c, PIECE0).rows.length);
    const e = errSpec(errRows(c, PIECE0).rows, { text: 'errors' }) as {
      layer: { encoding: { y: { field: string; scale: { type: string } } } }[];
    };
    expect(e.layer.map((l) => [l.encoding.y.field, l.encoding.y.scale.type])).toEqual([
      ['tolerance', 'log'],
      ['relErr', 'log'],
    ]);
    const h = headSpec([{ axis: 'head', index: 0, relErr: 1 }], { text: 'heads' }) as { layer: { mark: { type: string } }[] };
    expect(h.layer[0]!.mark.type).toBe('rect');
  });
});
