import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../../harness/run/trace';
import { caseResult, runReport } from '../../test-utils/reports';
import { piece } from '../../test-utils/traces';
import { MARKDOWN_MARKER, MAX_ROWS, mdText, renderMarkdown } from './markdown';

const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;
const LSE = load('tiny-schedule-lse-layout.report.json');
const SMOKE = load('tiny-smoke.report.json');
const SCALE = load('fault-mqa-scale-576.tp0.report.json');
const noExpect = (r: RunReport): RunReport => ({
  ...r,
  scenario: { ...r.scenario, expect: undefined },
  cases: r.cases.map((c) => ({ ...c, expectation: undefined })),
});
const rowsOf = (md: string) => md.split('\n').filter((l) => /^\| (✅|❌) \|/.test(l));

describe('renderMarkdown', () => {
  it('one row per scenario case, ✅ for agreement and for a divergence met as declared', () => {
    const md = renderMarkdown([SMOKE, LSE, SCALE]);
    expect(md.startsWith(MARKDOWN_MARKER)).toBe(true);
    const rows = rowsOf(md);
    expect(rows).toHaveLength(SMOKE.cases.length + LSE.cases.length + SCALE.cases.length);
    expect(rows.every((r) => r.startsWith('| ✅'))).toBe(true);
    expect(md).toContain('### mla-diff: 4/4 pass');
    expect(rows[2]).toContain('first divergence at context\\_lse\\[chunk 0\\] (step 1, chat): out-of-tolerance, culprit mha — as declared');
    expect(rows[3]).toContain(`| ${SCALE.device.name} |`);
  });

  it('a divergence without expect: is ❌ with the first divergence, culprit, likely cause and the divergent records of its piece', () => {
    const md = renderMarkdown([noExpect(SCALE)]);
    const [row] = rowsOf(md);
    expect(row).toMatch(
      /^\| ❌ \| fault-mqa-scale-576 \| tp0-of-8 .*first divergence at logits \(step 0, prompt\): out-of-tolerance, culprit mqa \|/,
    );
    expect(row).toContain(mdText(SCALE.cases[0]!.diagnosis[0]!.summary));
    const c = SCALE.cases[0]!;
    const divergent = c.comparison.stages.filter((v) => v.verdict !== 'ok' && v.step === 0);
    const table = md.split('\n').filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| record'));
    expect(table).toHaveLength(divergent.length);
    expect(table[0]).toMatch(/^\| logits \| out-of-tolerance \| 3\.3e-1 \| mha↔mqa \| 1\.0e-5 \| mqa \| introduced \|$/);
    expect(md).toContain('### mla-diff: 0/1 pass, 1 fail');
  });

  it('caps the record table and counts the rest; escapes table-breaking characters', () => {
    const c = caseResult({
      name: 'a|b',
      pieces: [piece(0, 'r')],
      rel: (w) => (w.stage.startsWith('w') || w.stage === 'hidden_in' ? undefined : { engine: 0.5, mqa: 0.5 }),
    });
    const md = renderMarkdown(
      [runReport([c], { scenario: { ...runReport([]).scenario, name: 'x_<b>*' } })],
      [{ scenario: 'gone.yaml', message: 'exit 2 | boom' }],
    );
    const divergent = c.comparison.stages.filter((v) => v.verdict !== 'ok').length;
    expect(divergent).toBeGreaterThan(MAX_ROWS);
    expect(md).toContain(`… and ${divergent - MAX_ROWS} more divergent record(s) in this piece`);
    const rows = rowsOf(md);
    expect(rows[0]).toMatch(/^\| ❌ \| x\\_&lt;b&gt;\\\* \| a\\\|b /);
    expect(rows[1]).toBe('| ❌ | gone.yaml |  |  | no report: exit 2 \\| boom |  |');
    // Every row has the header's 6 cells: no unescaped pipe split a cell.
    for (const r of rows) expect(r.split(/(?<!\\)\|/).length - 2).toBe(6);
  });
});
