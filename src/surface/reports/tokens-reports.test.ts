import { caseResult, runReport } from '../../test-utils/reports';
import { renderHtml } from './html';
import { renderJUnit } from './junit';
import { renderMarkdown } from './markdown';
import { makeStyle } from './style';
import { renderRun } from './summary';
import { visibleWidth } from './visible-width';

/** The prompt's ids and token strings reach every report: the table header, Markdown, JUnit and HTML. */
const tokenized = () => {
  const r = runReport([caseResult()]);
  return { ...r, scenario: { ...r.scenario, tokens: ['<|endoftext|>', 'The', ' capital'], bos: 'true' as const } };
};
const ids = (r: ReturnType<typeof tokenized>) => r.scenario.requests[0]!.ids.join(', ');

describe('tokens in the reports', () => {
  it('the table shows them under the case header, whole without a width and fitted to one', () => {
    const r = tokenized();
    const wide = renderRun(r, makeStyle(false));
    expect(wide).toContain('tokens: 3 · [0] 1 <|endoftext|> · [1] 2 The · [2] 3 ␣capital');
    const narrow = renderRun(r, makeStyle(false, 40))
      .split('\n')
      .find((l) => l.startsWith('tokens:'))!;
    expect(visibleWidth(narrow)).toBeLessThanOrEqual(40);
  });

  it('Markdown, JUnit and HTML carry the same line (escaped), JUnit the ids too', async () => {
    const r = tokenized();
    expect(renderMarkdown([r])).toContain('tokens: 3');
    const junit = renderJUnit([r]);
    expect(junit).toContain(`name="prompt.ids" value="[${ids(r).replace(/ /g, '')}]"`);
    expect(junit).toContain('&lt;|endoftext|&gt;');
    expect(junit).toContain('name="prompt.bos" value="true"');
    expect(await renderHtml([r])).toContain('[0] 1 &lt;|endoftext|&gt;');
  });

  it('ids given as numbers, not text, add no tokens line', () => {
    const r = runReport([caseResult()]);
    expect(renderRun(r, makeStyle(false))).not.toContain('tokens:');
    expect(renderJUnit([r])).not.toContain('prompt.tokens');
  });
});
