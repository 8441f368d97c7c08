import { promptTokensLine, tokensLine, visibleToken } from './tokens';
import { lineWidth as columns } from './visible-width';

describe('visibleToken', () => {
  test('spaces as ␣, control characters escaped, the rest as it is', () => {
    expect(visibleToken(' Hello')).toBe('␣Hello');
    expect(visibleToken('   ')).toBe('␣␣␣');
    expect(visibleToken('\n\n')).toBe('\\n\\n');
    expect(visibleToken('\r\n\t')).toBe('\\r\\n\\t');
    expect(visibleToken('\u0001\u007f\u0085')).toBe('\\x01\\x7F\\x85');
    expect(visibleToken('a\u200bb\u00a0')).toBe('a\\u{200B}b\\u{A0}');
    expect(visibleToken('back\\slash')).toBe('back\\\\slash');
    expect(visibleToken('東京')).toBe('東京');
    expect(visibleToken('🙂')).toBe('🙂');
    expect(visibleToken('<｜begin▁of▁sentence｜>')).toBe('<｜begin▁of▁sentence｜>');
    expect(visibleToken('<0xE6><0x9D>')).toBe('<0xE6><0x9D>');
    expect(visibleToken('')).toBe('∅');
  });
});

describe('tokensLine', () => {
  const ids = [0, 19923, 2058, 201];
  const tokens = ['<｜begin▁of▁sentence｜>', 'Hello', ' world', '\n'];

  test('every token, with its index, id and visible text', () => {
    expect(tokensLine(ids, tokens)).toBe('tokens: 4 · [0] 0 <｜begin▁of▁sentence｜> · [1] 19923 Hello · [2] 2058 ␣world · [3] 201 \\n');
  });

  test('ids alone without token strings', () => {
    expect(tokensLine([5, 9, 5])).toBe('ids: 3 · [0] 5 · [1] 9 · [2] 5');
  });

  test('a width keeps the first tokens, … and the last one, within the width', () => {
    const many = Array.from({ length: 50 }, (_, i) => 1000 + i);
    const texts = many.map((_, i) => ` w${i}`);
    for (const width of [60, 80, 100, 200]) {
      const line = tokensLine(many, texts, width);
      expect(columns(line)).toBeLessThanOrEqual(width);
      expect(line.startsWith('tokens: 50 · [0] 1000 ␣w0')).toBe(true);
      expect(line.endsWith(' · … · [49] 1049 ␣w49')).toBe(true);
    }
    expect(tokensLine(many, texts, 40)).toBe('tokens: 50 · … · [49] 1049 ␣w49');
    expect(tokensLine(many, texts, 10)).toBe('tokens: 50 · …');
    expect(tokensLine(ids, tokens, 1000)).toBe(tokensLine(ids, tokens));
  });

  test('wide characters count two columns', () => {
    expect(columns('東京')).toBe(4);
    expect(columns('a🙂')).toBe(3);
    const line = tokensLine([1, 2, 3, 4, 5, 6], ['東京', '大阪', '名古屋', '札幌', '福岡', '神戸'], 40);
    expect(columns(line)).toBeLessThanOrEqual(40);
    expect(line).toMatch(/^tokens: 6 · \[0\] 1 東京 .*… · \[5\] 6 神戸$/);
  });

  test('promptTokensLine: only for tokenized text', () => {
    const requests = [{ name: 'prompt', ids: [7, 8], startStep: 0, positionOffset: 0, phases: [] }];
    expect(promptTokensLine({ requests, tokens: ['a', ' b'] })).toBe('tokens: 2 · [0] 7 a · [1] 8 ␣b');
    expect(promptTokensLine({ requests })).toBeUndefined();
  });
});
