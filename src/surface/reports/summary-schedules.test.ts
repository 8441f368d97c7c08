import type { Where } from '../../harness/run/diff';
import type { PieceInfo } from '../../harness/run/trace';
import { caseResult, runReport } from '../../test-utils/reports';
import type { Rel } from '../../test-utils/traces';
import { piece, stats } from '../../test-utils/traces';
import { makeStyle } from './style';
import { FULL_TABLES_UP_TO, oneLine, renderCase, renderRun } from './summary';

const plain = makeStyle(false);

/** The first cell of each row of the norm-trace tables: the stage labels, in the order printed. */
function printedStages(text: string): string[] {
  const out: string[] = [];
  let inTrace = false;
  for (const l of text.split('\n')) {
    if (!l.startsWith('│')) continue;
    const first = l.split('│')[1]!.trim();
    if (first === 'stage' || first === 'step') inTrace = first === 'stage';
    else if (inTrace && !first.startsWith('──')) out.push(first.replace(/ ·derived$/, ''));
  }
  return out;
}

/** The piece headers (`step 1 · request b · …`) printed above full tables, as `1/b`. */
const pieceHeaders = (text: string) => [...text.matchAll(/^step (\d+) · request (\S+) · /gm)].map((m) => `${m[1]}/${m[2]}`);

/** Rows of the per-piece summary table, as [step, request]. */
function summaryRows(text: string): string[][] {
  const out: string[][] = [];
  let inSummary = false;
  for (const l of text.split('\n')) {
    if (!l.startsWith('│')) continue;
    const cells = l
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === 'step' || cells[0] === 'stage') inSummary = cells[0] === 'step';
    else if (inSummary) out.push(cells);
  }
  return out;
}

describe('schedules', () => {
  /** More pieces than FULL_TABLES_UP_TO: a prefill, a cache fill, two prefills with context, two decodes. */
  const PIECES: PieceInfo[] = [
    piece(0, 'a', { count: 5 }),
    piece(0, 'b', { kind: 'cached', count: 7 }),
    piece(1, 'a', { start: 5, count: 5, chunks: 2 }),
    piece(1, 'b', { start: 7, count: 6, chunks: 2 }),
    piece(2, 'a', { kind: 'decode', count: 1, start: 10, chunks: 2 }),
    piece(3, 'a', { kind: 'decode', count: 1, start: 11, chunks: 2 }),
  ];
  const runs = PIECES.filter((p) => p.kind !== 'cached');
  const failAt = (step: number, request: string, stage: Where['stage'], chunk: number | undefined, rel: Rel) => (w: Where) =>
    w.step === step && w.request === request && w.stage === stage && w.chunk === chunk ? rel : undefined;
  const diverge = caseResult({ pieces: PIECES, withCold: true, rel: failAt(1, 'b', 'context_lse', 1, { mha: 0.3 }) });
  const report = runReport([diverge]);

  it('are long enough to be summarised', () => {
    expect(runs.length).toBeGreaterThan(FULL_TABLES_UP_TO);
  });

  it('a diverging schedule shows the per-piece summary, then the full table of the first divergent piece only', () => {
    const text = renderCase(report, diverge, plain);
    expect(text).toContain(`· ${runs.length} piece(s) ·`);
    expect(summaryRows(text).map((r) => `${r[0]}/${r[1]}`)).toEqual(PIECES.map((p) => `${p.step}/${p.request}`));
    expect(text).toContain('the first divergent piece:');
    expect(pieceHeaders(text)).toEqual(['1/b']);
    expect(text).toContain('step 1 · request b · prefill 6 tokens at 7 (2 context chunks) · engine path mha, has_context');
    // The summary comes first, then that piece's table.
    expect(text.indexOf('◀ first')).toBeLessThan(text.indexOf('step 1 · request b'));
    expect(printedStages(text)).toContain('context_lse[1]');
    expect(text.split('\n').filter((l) => l.includes('◀ first'))).toHaveLength(2); // summary row, table row
    expect(text).toMatch(
      /^FAIL all-heads: first divergence at context_lse\[chunk 1\], step 1, request b \(out-of-tolerance\) — mha is the wrong path/m,
    );
  });

  it('the piece shown is the first divergent one even when a later piece diverges earlier in the pipeline', () => {
    const c = caseResult({
      pieces: PIECES,
      rel: (w) =>
        failAt(1, 'a', 'o_proj_out', undefined, { engine: 0.2, mqa: 0.2 })(w) ??
        failAt(3, 'a', 'hidden_in', undefined, { engine: 0.2, mha: 0.2 })(w),
    });
    const text = renderCase(runReport([c]), c, plain);
    expect(pieceHeaders(text)).toEqual(['1/a']);
    expect(
      summaryRows(text)
        .filter((r) => r[4]!.includes('diverge'))
        .map((r) => [r[0], r[4]]),
    ).toEqual([
      ['1', '1 diverge ◀ first'],
      ['3', '1 diverge'],
    ]);
  });

  it('an agreeing schedule shows the summary and its last piece', () => {
    const c = caseResult({ pieces: PIECES });
    const text = renderCase(runReport([c]), c, plain);
    expect(summaryRows(text)).toHaveLength(PIECES.length);
    expect(text).toContain('the last piece');
    expect(pieceHeaders(text)).toEqual(['3/a']);
    expect(text).toMatch(/^PASS all-heads: mha ≡ mqa ≡ reference at \d+ records of 5 piece\(s\)/m);
  });

  it('with all = true every piece that ran gets its full table, and no summary', () => {
    const text = renderCase(report, diverge, plain, true);
    expect(pieceHeaders(text)).toEqual(runs.map((p) => `${p.step}/${p.request}`));
    expect(summaryRows(text)).toEqual([]);
    expect(text.split('\n').filter((l) => l.includes('◀ first'))).toHaveLength(1);
    expect(pieceHeaders(renderRun(report, plain, true))).toEqual(runs.map((p) => `${p.step}/${p.request}`));
    expect(pieceHeaders(renderRun(report, plain))).toEqual(['1/b']);
  });

  it(`up to ${FULL_TABLES_UP_TO} pieces, every piece gets its full table`, () => {
    const few = PIECES.slice(0, 4); // 3 that run and a cache fill
    const c = caseResult({ pieces: few, rel: failAt(1, 'a', 'chunk_lse', 0, { mha: 0.3 }) });
    const text = renderCase(runReport([c]), c, plain);
    expect(summaryRows(text)).toEqual([]);
    expect(pieceHeaders(text)).toEqual(['0/a', '1/a', '1/b']);
    // The chunked stages of both pieces with context, labelled by chunk, in order.
    const labels = printedStages(text);
    expect(labels.filter((l) => l.startsWith('context_lse'))).toEqual([
      'context_lse[0]',
      'context_lse[1]',
      'context_lse[0]',
      'context_lse[1]',
    ]);
    expect(labels.filter((l) => l === 'hidden_in')).toHaveLength(3);
    expect(
      text
        .split('\n')
        .filter((l) => l.includes('◀ first'))
        .map((l) => l.split('│')[1]!.trim()),
    ).toEqual(['chunk_lse[0]']);
  });

  it('scalars are printed per piece', () => {
    const text = renderCase(report, diverge, plain, true);
    expect(text.match(/^has_context: mha true/gm)).toHaveLength(runs.length - 1);
    expect(text.match(/^has_context: mha false/gm)).toHaveLength(1);
  });

  it('a NaN first divergence says where NaN first appears, and shows NaN norms', () => {
    const c = caseResult({
      pieces: PIECES,
      withReference: false,
      records: (path, w) =>
        path === 'mha' && w.step === 1 && w.request === 'a' && w.stage === 'context_output' && w.chunk === 1
          ? { stats: stats(3, { nanCount: 5 }) }
          : undefined,
    });
    expect(c.comparison.firstDivergence).toMatchObject({
      step: 1,
      request: 'a',
      stage: 'context_output',
      chunk: 1,
      verdict: 'nan-introduced',
      culprit: 'mha',
    });
    const text = renderCase(runReport([c]), c, plain);
    expect(text).toMatch(
      new RegExp(
        /^FAIL all-heads: first divergence at context_output\[chunk 1\], step 1, request a \(nan-introduced\) — /.source +
          /mha is the wrong path; NaN first appears here$/.source,
        'm',
      ),
    );
    const row = text.split('\n').find((l) => l.split('│')[1]?.trim() === 'context_output[1]')!;
    expect(row.split('│')[2]!.trim()).toBe('NaN');
  });

  it('oneLine names the step, request and chunk of the first divergence', () => {
    expect(oneLine(report)).toBe('FAIL synthetic: all-heads first diverges at context_lse[chunk 1] (step 1, b; culprit mha) on wasm');
  });
});
