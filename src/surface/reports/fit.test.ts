import Table from 'cli-table3';
import { fitColumns, fitTable, fitText, naturalWidths } from './fit';
import { makeStyle } from './style';
import { visibleWidth } from './visible-width';

const PROSE =
  'softmax scale from the 576-wide latent, (kv_lora_rank + qk_rope_head_dim)^-0.5, instead of qk_head_dim^-0.5 — ' +
  'MetaX-MACA/vLLM-metax#113 (review suggestion); FlashMLA default softmax_scale=None';

/** A table of a name, two numbers and a prose column; `colour` styles the cells. */
function table(colour: boolean) {
  const s = makeStyle(colour);
  const t = new Table({
    head: ['stage', 'rel err', 'max|Δ|', 'verdict'].map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
  });
  for (const [i, name] of ['q_pe', 'kv_c_normed', 'attn_out_latent'].entries())
    t.push([name, `${i + 1}.2e-7`, `3.${i}e-6`, s.bad(`out-of-tolerance (mqa) · introduced ◀ first ${PROSE}`)]);
  return t;
}
const widest = (text: string) => Math.max(...text.split('\n').map(visibleWidth));

describe('fitColumns', () => {
  it('natural widths when they fit (borders counted: n + 1)', () => {
    expect(fitColumns([10, 20], [1], 33)).toEqual([10, 20]);
    expect(fitColumns([10, 20], [1], 32, 4)).toEqual([10, 19]);
  });

  it('the wrapping columns share what the others leave, none past its natural width, the narrowest first', () => {
    expect(fitColumns([10, 8, 30, 100], [2, 3], 100)).toEqual([10, 8, 30, 47]);
    expect(fitColumns([10, 8, 40, 100], [2, 3], 100)).toEqual([10, 8, 38, 39]);
    expect(fitColumns([10, 8, 40, 100], [2, 3], 80)).toEqual([10, 8, 28, 29]);
  });

  it('null when a wrapping column would get fewer than minWrap content columns, or none may wrap', () => {
    expect(fitColumns([10, 8, 100], [2], 40, 24)).toBeNull();
    expect(fitColumns([10, 8, 100], [2], 48, 24)).toEqual([10, 8, 24 + 2]);
    expect(fitColumns([50, 50], [], 80)).toBeNull();
  });
});

describe('fitTable', () => {
  it('without a width (pipes, files, --wide) the table is exactly cli-table3 as is', () => {
    expect(fitTable(table(true), makeStyle(true), { wrap: [3], fallback: 'list' })).toBe(table(true).toString());
    expect(fitTable(table(false), makeStyle(false), { wrap: [3], fallback: 'list' })).toBe(table(false).toString());
  });

  it.each([80, 100, 200])('fits %i columns: numbers keep their width, the verdict wraps, colour codes do not count', (width) => {
    for (const colour of [false, true]) {
      const out = fitTable(table(colour), makeStyle(colour, width), { wrap: [3], fallback: 'overflow' });
      expect(widest(out)).toBeLessThanOrEqual(width);
      expect(out).toContain('1.2e-7');
      expect(out).toContain('3.2e-6');
      expect(out).toContain('attn_out_latent');
      expect(out.split('\n').length).toBeGreaterThan(table(colour).toString().split('\n').length);
    }
  });

  it('a table that fits is left as it is', () => {
    const t = () => {
      const x = new Table({ head: ['a', 'b'] });
      x.push(['1', '2']);
      return x;
    };
    expect(fitTable(t(), makeStyle(false, 80), { wrap: [1], fallback: 'list' })).toBe(t().toString());
  });

  it("where even wrapping leaves too little room: the list layout, or the full table ('overflow')", () => {
    const narrow = makeStyle(false, 40);
    const list = fitTable(table(false), narrow, { wrap: [3], minWrap: 30, fallback: 'list' });
    expect(list).not.toContain('│');
    expect(list.split('\n')[0]).toBe('q_pe · rel err 1.2e-7 · max|Δ| 3.0e-6');
    expect(widest(list)).toBeLessThanOrEqual(40);
    expect(fitTable(table(false), narrow, { wrap: [3], minWrap: 30, fallback: 'overflow' })).toBe(table(false).toString());
  });

  it('drop: groups of columns left out, a group at a time, when wrapping is not enough; named under the table', () => {
    const out = fitTable(table(false), makeStyle(false, 56), { wrap: [3], minWrap: 24, drop: [[2], [1]], fallback: 'list' });
    expect(out.split('\n')[1]).toBe('│ stage           │ rel err │ verdict                  │');
    expect(out.split('\n').at(-1)).toBe('max|Δ| left out to fit 56 columns; --wide shows them');
    expect(widest(out)).toBeLessThanOrEqual(56);
    const both = fitTable(table(false), makeStyle(false, 40), { wrap: [3], minWrap: 16, drop: [[2], [1]], fallback: 'list' });
    expect(both.split('\n')[1]).toMatch(/^│ stage +│ verdict +│$/);
    expect(both.split('\n').at(-2)).toMatch(/^rel err, max\|Δ\| left out/);
  });

  it('naturalWidths: the widest visible cell plus padding, spanning rows left out', () => {
    expect(naturalWidths([['ab', makeStyle(true).bad('abcdef')], [{ content: 'x'.repeat(50), colSpan: 2 }], ['abcd', '']])).toEqual([6, 8]);
  });
});

describe('fitText', () => {
  it('wraps each line to the width, continuation lines indented; as it is without a width', () => {
    expect(fitText(PROSE, makeStyle(false))).toBe(PROSE);
    const out = fitText(`${PROSE}\nhint: ${PROSE}`, makeStyle(false, 60), 4);
    expect(widest(out)).toBeLessThanOrEqual(60);
    expect(out.split('\n').filter((l) => !l.startsWith('    '))).toHaveLength(2);
  });
});
