import { checkExpectation } from '../../harness/compare/expect';
import { STAGE_NAMES } from '../../trace/stages';
import { caseResult, runReport } from '../../test-utils/reports';
import { ONE_SHOT_STAGES } from '../../test-utils/traces';
import { makeStyle } from './style';
import { oneLine, renderCase, renderRun } from './summary';

const ANSI = /\u001b\[/;
const plain = makeStyle(false);
const color = makeStyle(true);

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

describe('renderRun / renderCase', () => {
  const agree = caseResult({ name: 'all-heads' });
  const diverge = caseResult({ name: 'tp0-of-2', rel: { q_pe: { engine: 0.5, mha: 0.5 }, logits: { engine: 0.1, mha: 0.1 } } });
  diverge.expectation = checkExpectation({ outcome: 'diverge', first_divergence: 'q_pe', culprit: 'mha' }, diverge.comparison);
  const report = runReport([agree, diverge], {
    scenario: { ...runReport([]).scenario, faults: { mha: ['rope-neox'], mqa: [] } },
  });

  it('plain style output has no ANSI escapes', () => {
    expect(renderRun(report, plain)).not.toMatch(ANSI);
    expect(renderCase(report, diverge, plain)).not.toMatch(ANSI);
  });

  it('colour style output has ANSI escapes', () => {
    expect(renderRun(report, color)).toMatch(ANSI);
    expect(renderCase(report, agree, color)).toMatch(ANSI);
  });

  it('lists every stage of each case in pipeline order', () => {
    expect(printedStages(renderCase(report, agree, plain))).toEqual(ONE_SHOT_STAGES);
    expect(printedStages(renderRun(report, plain))).toEqual([...ONE_SHOT_STAGES, ...ONE_SHOT_STAGES]);
  });

  it('a one-piece case prints its piece header and no summary table', () => {
    const text = renderCase(report, agree, plain);
    expect(pieceHeaders(text)).toEqual(['0/prompt']);
    expect(text).toContain('step 0 · request prompt · prefill 3 tokens · engine path mha');
    expect(summaryRows(text)).toEqual([]);
  });

  it('marks the first divergence row of the diverging case only', () => {
    const text = renderRun(report, plain);
    const marked = text.split('\n').filter((l) => l.includes('◀ first'));
    expect(marked).toHaveLength(1);
    expect(marked[0]!.split('│')[1]!.trim()).toBe('q_pe');
  });

  it('shows — for a path that lacks a stage', () => {
    const row = renderCase(report, agree, plain)
      .split('\n')
      .find((l) => l.split('│')[1]?.trim() === 'ql_nope')!;
    expect(row.split('│')[2]!.trim()).toBe('—');
  });

  it('names the verdict, case, first divergence and its piece', () => {
    const pass = renderCase(report, agree, plain);
    expect(pass).toMatch(/^PASS all-heads/m);
    const fail = renderCase(report, diverge, plain);
    expect(fail).toMatch(/^FAIL tp0-of-2: first divergence at q_pe, step 0, request prompt \(out-of-tolerance\)/m);
    expect(fail).toContain('mha is the wrong path');
    expect(fail).toContain('mha:rope-neox');
    expect(fail).toContain('expectation met');
  });

  it('an unmet expectation says what was missed', () => {
    const c = caseResult({ name: 'x', rel: { lse: { engine: 1, mqa: 1 } } });
    c.expectation = checkExpectation({ outcome: 'diverge', first_divergence: 'lse', step: 3 }, c.comparison);
    const text = renderCase(runReport([c]), c, plain);
    expect(text).toMatch(/^expectation NOT met: .*step 0.*3/m);
  });

  it('renders every case of the run, in order', () => {
    const text = renderRun(report, plain);
    expect(text.indexOf('PASS all-heads')).toBeGreaterThan(-1);
    expect(text.indexOf('FAIL tp0-of-2')).toBeGreaterThan(text.indexOf('PASS all-heads'));
  });

  it('a run without a reference renders without reference columns', () => {
    const c = caseResult({ withReference: false });
    const r = runReport([c], { seconds: { weights: 0, reference: null, total: 0.5 } });
    const text = renderRun(r, plain);
    expect(text).not.toContain('‖reference‖');
    expect(text).not.toContain('vs ref');
    expect(text).not.toContain('float64 reference');
    // Every record is listed; a one-sided stage has nothing to be compared with and shows — for its error.
    expect(printedStages(text)).toEqual(c.comparison.stages.map((s) => s.stage));
    expect(printedStages(text)).toContain('logits');
    const row = text.split('\n').find((l) => l.split('│')[1]?.trim() === 'ql_nope')!;
    expect(
      row
        .split('│')
        .slice(2, 5)
        .map((x) => x.trim()),
    ).toEqual(['—', String(10 + STAGE_NAMES.indexOf('ql_nope')), '—']); // ‖mha‖ ‖mqa‖ rel err
    // The PASS line counts only the records some pair compared.
    const compared = c.comparison.stages.filter((s) => s.pairs.length).length;
    expect(compared).toBeLessThan(c.comparison.stages.length);
    expect(text).toContain(`mha ≡ mqa at ${compared} records of 1 piece(s)`);
  });

  it('the cold column appears when the cold path ran, and the PASS line names it', () => {
    const c = caseResult({ withCold: true });
    const text = renderCase(runReport([c]), c, plain);
    expect(text).toContain('‖cold‖');
    expect(text).toMatch(/^PASS all-heads: mha ≡ mqa ≡ cold ≡ reference at \d+ records/m);
    expect(renderCase(report, agree, plain)).not.toContain('‖cold‖');
  });

  it('a culprit cold is named as such', () => {
    const c = caseResult({ withCold: true, rel: { attn_out: { mhaCold: 0.2, mqaCold: 0.2, cold: 0.2 } } });
    expect(c.comparison.firstDivergence).toMatchObject({ stage: 'attn_out', culprit: 'cold' });
    expect(renderCase(runReport([c]), c, plain)).toMatch(/^FAIL all-heads: first divergence at attn_out.*the cold fp32 path disagrees/m);
  });

  it('times every path that ran', () => {
    const c = caseResult({ withCold: true });
    expect(renderRun(runReport([c]), plain)).toMatch(/time: .*all-heads mha 0\.50 mqa 0\.25 cold 0\.13; float64 reference 0\.02 s/);
  });

  it.each([
    ['every case agrees', [caseResult()], /^PASS synthetic/],
    [
      'a case diverges',
      [caseResult(), caseResult({ name: 'bad', rel: { lse: { engine: 1, mqa: 1 } } })],
      /^FAIL synthetic: bad .*lse \(step 0, prompt; culprit mqa\)/,
    ],
  ])('oneLine: %s', (_what, cases, want) => {
    const line = oneLine(runReport(cases));
    expect(line).not.toContain('\n');
    expect(line).toMatch(want);
    expect(line).toContain('wasm');
  });
});
