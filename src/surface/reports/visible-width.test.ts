import { lineWidth, stripAnsi, visibleWidth } from './visible-width';
import { makeStyle } from './style';

describe('visibleWidth', () => {
  const colour = makeStyle(true);

  it('ANSI colour codes take no columns', () => {
    const s = colour.bad(colour.bold('out-of-tolerance (mqa)'));
    expect(s).not.toBe('out-of-tolerance (mqa)');
    expect(stripAnsi(s)).toBe('out-of-tolerance (mqa)');
    expect(visibleWidth(s)).toBe(22);
  });

  it('the report symbols are one column; CJK, fullwidth forms and emoji two; combining marks none', () => {
    expect(lineWidth('‖mha‖ ◀ first · ᴿ ≥ — Δ ↔ × …')).toBe(29);
    expect(lineWidth('中文')).toBe(4);
    expect(lineWidth('ＡＢ')).toBe(4);
    expect(lineWidth('✅ ❌ 🙂')).toBe(8);
    expect(lineWidth('e\u0301')).toBe(1);
    expect(lineWidth('a\u200bb')).toBe(2);
  });

  it('a string of several lines is as wide as its widest', () => {
    expect(visibleWidth('ab\nabcd\nabc')).toBe(4);
    expect(visibleWidth('')).toBe(0);
  });

  it('an OSC 8 hyperlink takes the columns of its text only', () => {
    expect(visibleWidth('\u001b]8;;https://example.org\u0007link\u001b]8;;\u0007')).toBe(4);
  });
});
