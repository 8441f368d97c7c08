import { judgedTolerance } from '../../harness/compare/compare';
import type { CaseResult, RunReport } from '../../trace';
import type { RunError } from './junit';
import { caseOutcome, culpritText, failingPair, originText, recordLabel } from './steps';
import { err } from './format';
import { weightsOutcomeOf } from '../../harness/compare/outcome';
import { promptTokensLine } from './tokens';

/**
 * A GitHub-flavoured Markdown summary for a CI step summary ($GITHUB_STEP_SUMMARY): one table row
 * per scenario × case (✅ when it passes as src/surface/reports/steps.ts judges: agreement, or the
 * divergence its `expect:` declares), then, per divergent case, its first divergent piece's
 * divergent records. A few kilobytes per scenario.
 */
export const MARKDOWN_MARKER = '<!-- mla-diff markdown';
/** Divergent records listed per case; the rest are counted. */
export const MAX_ROWS = 12;

/** Inline text made inert: Markdown punctuation backslash-escaped, HTML brackets as entities, one line. */
export const mdText = (s: string): string =>
  s
    .replace(/[\\`*_[\]|#~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');

const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const header = (cells: string[]) => [row(cells), row(cells.map(() => '---'))];

interface Line {
  ok: boolean;
  cells: string[];
}

function caseLine(r: RunReport, c: CaseResult): Line {
  const o = caseOutcome(r, c);
  const f = c.comparison.firstDivergence;
  const e = c.expectation;
  const verdict = !f
    ? 'agree'
    : `first divergence at ${recordLabel(f)} (step ${f.step}, ${f.request}): ${f.verdict}, culprit ${culpritText(c, f.culprit)}`;
  const expectText =
    !e || r.judge === 'agreement' ? '' : e.met ? (f ? ' — as declared' : '') : ` — expectation not met: ${e.misses.join('; ')}`;
  return {
    ok: o.passed,
    cells: [
      o.passed ? '✅' : '❌',
      mdText(r.scenario.name),
      mdText(`${c.trace.name} (${c.trace.label})`),
      mdText(r.device.name),
      mdText(verdict + expectText),
      mdText(c.diagnosis[0]?.summary ?? ''),
    ],
  };
}

function weightsLine(r: RunReport): Line | null {
  const w = r.weights;
  const wc = w?.comparison;
  if (!w || !wc) return null;
  const o = weightsOutcomeOf(r)!; // the one rule: src/harness/compare/outcome.ts
  const ok = o.outcome === 'pass';
  const verdict = wc.verdict === 'agree' ? 'weights agree' : `weights differ at ${wc.firstWeight ?? 'no single weight'}`;
  const misses = o.misses.length
    ? ` — expectation not met: ${o.misses.join('; ')}`
    : o.declared && wc.verdict === 'diverge'
      ? ' — as declared'
      : '';
  return {
    ok,
    cells: [
      ok ? '✅' : '❌',
      mdText(r.scenario.name),
      mdText(`weights vs ${w.compare?.label ?? 'second source'}`),
      mdText(r.device.name),
      mdText(verdict + misses),
      '',
    ],
  };
}

/** The first divergent piece's divergent records as a table. */
function detail(r: RunReport, c: CaseResult): string[] {
  const f = c.comparison.firstDivergence;
  if (!f) return [];
  const recs = c.comparison.stages.filter((v) => v.verdict !== 'ok' && v.step === f.step && v.request === f.request);
  const rows = recs.slice(0, MAX_ROWS).map((v) => {
    const p = failingPair(v);
    return row([
      mdText(recordLabel(v)),
      mdText(v.verdict),
      p ? err(p.relErr) : '—',
      p
        ? mdText(`${p.a}↔${p.b}`)
        : mdText(
            v.checks
              .filter((x) => x.violations)
              .map((x) => `${x.name} on ${x.path}`)
              .join(', '),
          ),
      err(judgedTolerance(v)),
      mdText(v.culprit ?? 'unknown'),
      mdText(originText(c, v) ?? ''),
    ]);
  });
  const more = recs.length > MAX_ROWS ? [`… and ${recs.length - MAX_ROWS} more divergent record(s) in this piece`] : [];
  return [
    `#### ${mdText(`${r.scenario.name} · ${c.trace.name}: step ${f.step}, request ${f.request}`)}`,
    '',
    ...header(['record', 'verdict', 'rel err', 'pair', 'tolerance', 'culprit', 'origin']),
    ...rows,
    ...more,
    '',
  ];
}

/** The summary of a set of runs (and runs that gave no report). */
export function renderMarkdown(reports: readonly RunReport[], errors: readonly RunError[] = []): string {
  const lines: Line[] = [
    ...reports.flatMap((r) => [...(weightsLine(r) ? [weightsLine(r)!] : []), ...r.cases.map((c) => caseLine(r, c))]),
    ...errors.map((e) => ({ ok: false, cells: ['❌', mdText(e.scenario), '', '', mdText(`no report: ${e.message}`), ''] })),
  ];
  const passed = lines.filter((l) => l.ok).length;
  const rule = reports.every((r) => r.judge === 'agreement')
    ? 'Judged by agreement (`--no-expect`): a row passes when its paths agree.'
    : 'Judged by declared outcomes: a case with `expect:` passes when its declared outcome is met ' +
      '(a declared divergence that does not happen fails), one without when its paths agree.';
  return [
    `${MARKDOWN_MARKER} report -->`,
    `### mla-diff: ${passed}/${lines.length} ${passed === lines.length ? 'pass' : 'pass, ' + (lines.length - passed) + ' fail'}`,
    '',
    ...(reports.length ? [rule, ''] : []),
    ...header(['', 'scenario', 'case', 'device', 'verdict', 'likely cause']),
    ...lines.map((l) => row(l.cells)),
    '',
    ...reports.flatMap((r) => {
      const t = promptTokensLine(r.scenario, 400);
      return t ? [`${mdText(r.scenario.name)}: ${mdText(t)}`, ''] : [];
    }),
    ...reports.flatMap((r) => r.cases.flatMap((c) => detail(r, c))),
  ].join('\n');
}
