import type { StageName } from '../../trace/stages';
import { STAGE_NAMES, STAGES } from '../../trace/stages';
import { caseResult } from '../../test-utils/reports';
import { ONE_SHOT_STAGES, PIECE0 } from '../../test-utils/traces';
import { makeStyle } from './style';
import { normTraceTable } from './table';
import { visibleWidth } from './visible-width';

const ANSI = /\u001b\[/;
const plain = makeStyle(false);

/** The table's rows as trimmed cells; group separator rows (one cell spanning all) included. */
function rows(table: string): string[][] {
  return table
    .split('\n')
    .filter((l) => l.startsWith('│'))
    .map((l) =>
      l
        .split('│')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

/** Stage rows by label (the first cell, less the `·derived` tag): `lse`, `chunk_lse[1]`. */
function stageRows(table: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows(table).slice(1)) {
    if (r.length > 1) out.set(r[0]!.replace(/ ·derived$/, ''), r);
  }
  return out;
}

describe('normTraceTable', () => {
  const agree = caseResult();
  const diverge = caseResult({ rel: { logits: { engine: 0.2, mqa: 0.2 }, lse: { engine: 0.3, mqa: 0.3 } } });

  it('plain style has no ANSI escapes', () => {
    expect(normTraceTable(agree, PIECE0, plain)).not.toMatch(ANSI);
    expect(normTraceTable(diverge, PIECE0, plain)).not.toMatch(ANSI);
  });

  it('colour style has ANSI escapes', () => {
    expect(normTraceTable(diverge, PIECE0, makeStyle(true))).toMatch(ANSI);
  });

  it('with a reference: header has the reference columns', () => {
    expect(rows(normTraceTable(agree, PIECE0, plain))[0]).toEqual([
      'stage',
      '‖mha‖',
      '‖mqa‖',
      '‖reference‖',
      'rel err',
      'vs ref',
      'max|Δ|',
      'verdict',
    ]);
  });

  it('without a reference: no reference columns', () => {
    const c = caseResult({ withReference: false });
    const t = normTraceTable(c, PIECE0, plain);
    expect(rows(t)[0]).toEqual(['stage', '‖mha‖', '‖mqa‖', 'rel err', 'max|Δ|', 'verdict']);
    for (const r of stageRows(t).values()) expect(r).toHaveLength(6);
  });

  it('lists every compared stage once, in pipeline order', () => {
    const names = [...stageRows(normTraceTable(agree, PIECE0, plain)).keys()];
    expect(names).toEqual(agree.comparison.stages.map((s) => s.stage));
    expect(names).toEqual(ONE_SHOT_STAGES);
  });

  it('lists only the stages of the comparison', () => {
    const stages: StageName[] = ['q_pe', 'k_pe', 'logits', 'attn_out'];
    const c = caseResult({ stages });
    expect([...stageRows(normTraceTable(c, PIECE0, plain)).keys()]).toEqual(stages);
  });

  it('marks the first divergence row, and only it', () => {
    const t = normTraceTable(diverge, PIECE0, plain);
    const marked = [...stageRows(t).entries()].filter(([, r]) => r.some((cell) => cell.includes('◀ first'))).map(([s]) => s);
    expect(marked).toEqual(['logits']);
    // The later failing stage shows its verdict without the mark.
    expect(stageRows(t).get('lse')!.at(-1)).toContain('out-of-tolerance');
    expect(stageRows(t).get('logits')!.at(-1)).toContain('(mqa)');
  });

  it('no row is marked when the paths agree', () => {
    expect(normTraceTable(agree, PIECE0, plain)).not.toContain('◀ first');
    for (const r of stageRows(normTraceTable(agree, PIECE0, plain)).values()) expect(r.at(-1)).toBe('ok');
  });

  it.each<[StageName, number]>([
    ['ql_nope', 1],
    ['W_UK_T', 1],
    ['attn_out_latent', 1],
    ['split_lse', 1],
    ['kv_nope', 2],
    ['k', 2],
  ])('%s: the path that lacks the stage shows — (column %i)', (stage, column) => {
    const r = stageRows(normTraceTable(agree, PIECE0, plain)).get(stage)!;
    expect(r[column]).toBe('—');
    // The other engine column has a norm.
    expect(r[3 - column]).toMatch(/^\d/);
    expect(STAGES[stage].paths).not.toContain(column === 1 ? 'mha' : 'mqa');
  });

  it('stages both paths have show both norms', () => {
    const r = stageRows(normTraceTable(agree, PIECE0, plain)).get('logits')!;
    const i = STAGE_NAMES.indexOf('logits');
    expect(r.slice(1, 4)).toEqual([String(10 + i), String(10 + i), String(10 + i)]);
  });

  it('a stage with no measured error shows — for it', () => {
    const c = caseResult({
      stages: ['q', 'logits'],
      diffs: (d) => d.map((x) => (x.stage === 'q' && x.b === 'mqa' ? { ...x, relErr: null, maxAbsErr: null } : x)),
    });
    const r = stageRows(normTraceTable(c, PIECE0, plain)).get('q')!;
    expect(r[4]).toBe('—');
    expect(r[6]).toBe('—');
  });

  it('rel err is mha↔mqa; a one-sided stage shows its path against the reference, marked ᴿ', () => {
    const c = caseResult({ rel: { logits: { engine: 2e-6, mha: 3e-7, mqa: 4e-7 }, ql_nope: { mqa: 5e-6 } } });
    const t = stageRows(normTraceTable(c, PIECE0, plain));
    expect(t.get('logits')!.slice(4, 6)).toEqual(['2.0e-6', '4.0e-7']); // rel err, worst vs ref
    expect(t.get('ql_nope')![4]).toBe('5.0e-6ᴿ');
  });

  it('without the reference, a stage no pair compares is still listed, with — for its error', () => {
    const c = caseResult({ withReference: false });
    const r = stageRows(normTraceTable(c, PIECE0, plain)).get('ql_nope')!;
    expect(r.slice(1, 3)).toEqual(['—', String(10 + STAGE_NAMES.indexOf('ql_nope'))]);
    expect(r[3]).toBe('—');
    expect(r.at(-1)).toBe('ok');
  });

  describe('fits the terminal (Style.width)', () => {
    const widest = (text: string) => Math.max(...text.split('\n').map(visibleWidth));
    const at = (width: number | undefined, colour = false) => normTraceTable(diverge, PIECE0, makeStyle(colour, width));

    it('200 columns, or none (a pipe, --wide): the table as it is, one line a stage', () => {
      expect(at(200)).toBe(at(undefined));
      expect(at(200, true)).toBe(at(undefined, true));
    });

    it('100 columns: the numbers keep their columns, the verdict wraps', () => {
      for (const colour of [false, true]) expect(widest(at(100, colour))).toBeLessThanOrEqual(100);
      const t = at(100);
      expect(stageRows(t).get('logits')!.slice(0, 8)).toEqual([
        'logits',
        '32',
        '32',
        '32',
        '2.0e-1',
        '2.0e-1',
        '4.0e-1',
        'out-of-tolerance',
      ]);
      expect(t).toMatch(/│ \(mqa\) ◀ first +│/);
    });

    it('80 columns: the norms are left out and named under the table', () => {
      for (const colour of [false, true]) expect(widest(at(80, colour))).toBeLessThanOrEqual(80);
      const t = at(80);
      expect(rows(t)[0]).toEqual(['stage', 'rel err', 'vs ref', 'max|Δ|', 'verdict']);
      expect(stageRows(t).get('logits')).toEqual(['logits', '2.0e-1', '2.0e-1', '4.0e-1', 'out-of-tolerance (mqa) ◀ first']);
      expect(t.split('\n').at(-1)).toMatch(/^‖mha‖, ‖mqa‖, ‖reference‖ left out to fit 80 columns/);
    });
  });
});
