import { STAGE_NAMES } from '../../trace/stages';
import { caseResult } from '../../test-utils/reports';
import { ONE_SHOT_STAGES, piece, PIECE0, stats } from '../../test-utils/traces';
import { makeStyle } from './style';
import { normTraceTable, pieceLabel, pieceSummaryTable } from './table';

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

/** A schedule: a plain prefill, a cache fill, two prefills with 2 context chunks, a decode. */
const PIECES = [
  piece(0, 'a', { count: 5 }),
  piece(0, 'b', { kind: 'cached', count: 7 }),
  piece(1, 'a', { start: 5, count: 5, chunks: 2 }),
  piece(1, 'b', { start: 7, count: 6, chunks: 2 }),
  piece(2, 'a', { kind: 'decode', count: 1, start: 10, chunks: 2 }),
];

describe('normTraceTable: cold path, pieces, non-finite values', () => {
  describe('the cold path', () => {
    const cold = caseResult({ withCold: true, rel: { kv_nope: { mhaCold: 3e-7, mha: 6e-7 } } });

    it('gets a column, between the engine paths and the reference, where it ran', () => {
      expect(rows(normTraceTable(cold, PIECE0, plain))[0]).toEqual([
        'stage',
        '‖mha‖',
        '‖mqa‖',
        '‖cold‖',
        '‖reference‖',
        'rel err',
        'vs ref',
        'max|Δ|',
        'verdict',
      ]);
      expect(rows(normTraceTable(caseResult(), PIECE0, plain))[0]).not.toContain('‖cold‖');
    });

    it('norms of the stages it has; — where it has none', () => {
      const t = stageRows(normTraceTable(cold, PIECE0, plain));
      expect(t.get('kv_nope')![3]).toBe(String(10 + STAGE_NAMES.indexOf('kv_nope')));
      expect(t.get('ql_nope')![3]).toBe('—');
      expect(t.get('W_UK_T')![3]).toBe('—');
    });

    it('an mha-only stage shows its error against cold, marked ᶜ; the worst vs ref leaves cold out', () => {
      const c = caseResult({ withCold: true, rel: { kv_nope: { mhaCold: 3e-7, mha: 6e-7, cold: 9e-6 } } });
      const r = stageRows(normTraceTable(c, PIECE0, plain)).get('kv_nope')!;
      expect(r.slice(5, 7)).toEqual(['3.0e-7ᶜ', '6.0e-7']);
    });

    it("without the reference, the judge column is 'vs cold'", () => {
      const c = caseResult({ withCold: true, withReference: false, rel: { lse: { engine: 1e-6, mhaCold: 2e-6, mqaCold: 7e-6 } } });
      const t = normTraceTable(c, PIECE0, plain);
      expect(rows(t)[0]).toEqual(['stage', '‖mha‖', '‖mqa‖', '‖cold‖', 'rel err', 'vs cold', 'max|Δ|', 'verdict']);
      expect(stageRows(t).get('lse')!.slice(4, 6)).toEqual(['1.0e-6', '7.0e-6']);
      expect(stageRows(t).get('kv_nope')![4]).toBe('1.0e-7ᶜ');
    });
  });

  describe('pieces and chunks', () => {
    const c = caseResult({
      pieces: PIECES,
      rel: (w) => (w.step === 1 && w.request === 'b' && w.stage === 'chunk_lse' && w.chunk === 1 ? { mha: 0.3 } : undefined),
    });

    it('shows only the records of the piece asked for', () => {
      const t = stageRows(normTraceTable(c, PIECES[0]!, plain));
      expect([...t.keys()]).toEqual(ONE_SHOT_STAGES);
      expect(normTraceTable(c, PIECES[2]!, plain)).not.toContain('◀ first');
      expect(normTraceTable(c, PIECES[3]!, plain)).toContain('◀ first');
    });

    it('labels chunked stages with their chunk, chunk by chunk inside the context block', () => {
      const labels = [...stageRows(normTraceTable(c, PIECES[2]!, plain)).keys()];
      const from = labels.indexOf('suffix_output');
      expect(labels.slice(from, labels.indexOf('split_lse'))).toEqual([
        'suffix_output',
        'suffix_lse',
        'ctx_workspace[0]',
        'chunk_output[0]',
        'chunk_lse[0]',
        'context_output[0]',
        'context_lse[0]',
        'ctx_workspace[1]',
        'chunk_output[1]',
        'chunk_lse[1]',
        'context_output[1]',
        'context_lse[1]',
      ]);
      // Stages recorded once per piece keep a plain label.
      expect(labels).toContain('lse');
      expect(labels.filter((l) => l.includes('['))).toHaveLength(10);
    });

    it('each chunk row has its own norms and verdict; the failing chunk is marked first', () => {
      const t = stageRows(normTraceTable(c, PIECES[3]!, plain));
      const i = STAGE_NAMES.indexOf('chunk_lse');
      expect(t.get('chunk_lse[0]')![1]).toBe(String(10 + i));
      expect(t.get('chunk_lse[1]')![1]).toBe(String(10 + i + 0.1));
      expect(t.get('chunk_lse[0]')!.at(-1)).toBe('ok');
      expect(t.get('chunk_lse[1]')!.at(-1)).toBe('out-of-tolerance (mha) ◀ first');
      expect(t.get('chunk_lse[1]')![4]).toBe('3.0e-1ᴿ');
    });

    it('a cache fill records nothing: an empty table', () => {
      expect(stageRows(normTraceTable(c, PIECES[1]!, plain)).size).toBe(0);
    });
  });

  describe('non-finite values and checks', () => {
    it('a norm is NaN where the values hold NaN, inf where none is finite', () => {
      const c = caseResult({
        pieces: [PIECES[2]!],
        records: (path, w) =>
          path === 'mha' && w.stage === 'context_output' && w.chunk === 1
            ? { stats: stats(3, { nanCount: 2 }) }
            : w.stage === 'chunk_lse' && w.chunk === 1 && path !== 'mqa'
              ? { stats: stats(0, { size: 6, infCount: 6 }) }
              : undefined,
      });
      const t = stageRows(normTraceTable(c, PIECES[2]!, plain));
      expect(t.get('context_output[1]')!.slice(1, 4)).toEqual(['NaN', '—', String(10 + STAGE_NAMES.indexOf('context_output') + 0.1)]);
      expect(t.get('chunk_lse[1]')!.slice(1, 4)).toEqual(['inf', '—', 'inf']);
      expect(t.get('context_output[1]')!.at(-1)).toBe('nan-introduced (mha) ◀ first');
    });

    it('a broken invariant is named in the verdict cell with its count', () => {
      const c = caseResult({
        records: (path, w) => (w.stage === 'lse' ? { checks: [{ name: 'lse_bounds', violations: path === 'mqa' ? 4 : 0 }] } : undefined),
      });
      const r = stageRows(normTraceTable(c, PIECE0, plain)).get('lse')!;
      expect(r.at(-1)).toBe('invariant-violated (mqa): mqa lse_bounds ×4 ◀ first');
    });
  });
});

describe('pieceSummaryTable', () => {
  const c = caseResult({
    pieces: PIECES,
    rel: (w) => (w.step === 1 && w.request === 'b' && w.stage === 'chunk_lse' && w.chunk === 1 ? { mha: 0.3 } : undefined),
  });
  const t = rows(pieceSummaryTable(c, plain));

  it('has one row per piece of the schedule, cache fills included, in order', () => {
    expect(t[0]!.slice(0, 5)).toEqual(['step', 'request', 'piece', 'engine path', 'verdict']);
    expect(t.slice(1).map((r) => r.slice(0, 2))).toEqual([
      ['0', 'a'],
      ['0', 'b'],
      ['1', 'a'],
      ['1', 'b'],
      ['2', 'a'],
    ]);
    expect(t.slice(1).map((r) => r[3])).toEqual(['mha', '—', 'mha', 'mha', 'mqa']);
  });

  it('describes each piece', () => {
    expect(t.slice(1).map((r) => r[2])).toEqual(PIECES.map(pieceLabel));
    expect(pieceLabel(PIECES[3]!)).toBe('prefill 6 tokens at 7 (2 context chunks)');
    expect(pieceLabel(PIECES[4]!)).toBe('decode 1 token at 10 (2 context chunks)');
    expect(pieceLabel(piece(3, 'x', { start: 4, count: 2, chunks: 1 }))).toBe('prefill 2 tokens at 4 (1 context chunk)');
    expect(pieceLabel(PIECES[1]!)).toBe('cached 7 tokens');
  });

  it('marks the first divergent piece and names its first divergent record', () => {
    expect(t[2]![4]).toBe('cache fill');
    expect(t[4]![4]).toBe('1 diverge ◀ first');
    expect(t[4]![5]).toBe('chunk_lse[1]: out-of-tolerance (mha)');
    for (const i of [1, 3, 5]) expect(t[i]![4]).toBe('ok');
  });

  it('agreeing pieces show their worst mha↔mqa error', () => {
    const worst = caseResult({ pieces: PIECES, rel: (w) => (w.step === 2 && w.stage === 'lse' ? { engine: 4e-6 } : undefined) });
    expect(rows(pieceSummaryTable(worst, plain))[5]![5]).toBe('4.0e-6 lse');
  });
});
