import { checkExpectation } from '../compare/expect';
import { STAGE_NAMES } from '../probes/stages';
import { caseResult, runReport } from '../test-utils/reports';
import { makeStyle } from './style';
import { oneLine, renderCase, renderRun } from './summary';

const ANSI = /\u001b\[/;
const plain = makeStyle(false);
const color = makeStyle(true);

/** The first cell of each table row: the stage names, in the order printed. */
function printedStages(text: string): string[] {
  return text.split('\n')
    .filter((l) => l.startsWith('│'))
    .map((l) => l.split('│')[1]!.trim().replace(/ ·derived$/, ''))
    .filter((s) => s !== 'stage' && !s.startsWith('──'));
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
    expect(printedStages(renderCase(report, agree, plain))).toEqual(STAGE_NAMES);
    expect(printedStages(renderRun(report, plain))).toEqual([...STAGE_NAMES, ...STAGE_NAMES]);
  });

  it('marks the first divergence row of the diverging case only', () => {
    const text = renderRun(report, plain);
    const marked = text.split('\n').filter((l) => l.includes('◀ first'));
    expect(marked).toHaveLength(1);
    expect(marked[0]!.split('│')[1]!.trim()).toBe('q_pe');
  });

  it('shows — for a path that lacks a stage', () => {
    const row = renderCase(report, agree, plain).split('\n').find((l) => l.split('│')[1]?.trim() === 'ql_nope')!;
    expect(row.split('│')[2]!.trim()).toBe('—');
  });

  it('names the verdict, case and first divergence', () => {
    const pass = renderCase(report, agree, plain);
    expect(pass).toMatch(/^PASS all-heads/m);
    const fail = renderCase(report, diverge, plain);
    expect(fail).toMatch(/^FAIL tp0-of-2/m);
    expect(fail).toContain('q_pe');
    expect(fail).toContain('mha:rope-neox');
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
    // One-sided stages have nothing to be compared with and are not listed.
    expect(printedStages(text)).toEqual(STAGE_NAMES.filter((s) => c.comparison.stages.some((v) => v.stage === s)));
    expect(printedStages(text)).toContain('logits');
    expect(printedStages(text)).not.toContain('ql_nope');
  });

  it.each([
    ['every case agrees', [caseResult()], /^PASS synthetic/],
    ['a case diverges', [caseResult(), caseResult({ name: 'bad', rel: { lse: { engine: 1, mqa: 1 } } })], /^FAIL synthetic: bad .*lse.*mqa/],
  ])('oneLine: %s', (_what, cases, want) => {
    const line = oneLine(runReport(cases));
    expect(line).not.toContain('\n');
    expect(line).toMatch(want);
    expect(line).toContain('wasm');
  });
});
