import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OUTPUT_MARKERS } from '../cli/io/process-io';
import type { RunReport } from '../../harness/run/trace';
import { caseResult, runReport } from '../../test-utils/reports';
import { escapeHtml, renderHtml } from './html';

const FIXTURE = resolve(__dirname, '../../../fixtures/fault-mqa-scale-576.tp0.report.json');
const svgs = (html: string) => html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];

describe('renderHtml', () => {
  it('escapes text', () => {
    expect(escapeHtml(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  });

  it('draws norms, errors and the per-head map of a saved fault run, inline and self-contained', async () => {
    const r = JSON.parse(readFileSync(FIXTURE, 'utf8')) as RunReport;
    const html = await renderHtml([r]);
    expect(OUTPUT_MARKERS.some((m) => html.startsWith(m))).toBe(true);
    const plots = svgs(html);
    expect(plots).toHaveLength(3);
    expect(plots[0]).toMatch(/class="mark-line/);
    expect(plots[1]).toMatch(/class="mark-symbol/);
    expect(plots[2]).toMatch(/class="mark-rect/);
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    expect(html).toContain(r.device.description);
    expect(html).toContain(escapeHtml(r.cases[0]!.diagnosis[0]!.summary));
    expect(html).toMatch(/first divergence<\/dt><dd>logits, step 0/);
  });

  it('escapes every text it takes from the report', async () => {
    const c = caseResult({ name: '<b>case</b>' });
    const r = runReport([c], { device: { ...runReport([]).device, description: 'dev <script>alert(1)</script>' } });
    const html = await renderHtml([{ ...r, scenario: { ...r.scenario, name: 'a & "b"' } }]);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>case</b>');
    expect(html).toContain('dev &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('a &amp; &quot;b&quot;');
    expect(svgs(html)).toHaveLength(2); // an agreeing case has no per-head map
    expect(html).toMatch(/the last piece/);
  });
});
