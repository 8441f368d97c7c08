import { judgedTolerance } from '../../harness/compare/compare';
import { originOf } from '../../harness/compare/origin';
import type { CaseResult, RunReport } from '../../trace';
import { err, num } from './format';
import { errRows, focusPiece, headRows, normRows, plottedPair, recordLabel } from './html-data';
import { renderSvg } from './html-render';
import { errSpec, headSpec, normSpec, VERDICT_COLOURS } from './html-specs';
import { pieceLabel, samePiece } from './table';
import { caseOutcomeOf } from '../../harness/compare/outcome';
import { declaredText, judgeText, outcomeWord, runOutcomeText } from './outcome-text';
import { promptTokensLine } from './tokens';

/**
 * The HTML report: one self-contained page (inline CSS, inline SVG, no script, no external
 * request) with, per scenario × case, the facts of the run and three plots rendered in Node by
 * Vega-Lite. Every piece of text from the report is escaped.
 */

/** The first line of every page mla-diff writes, so that --html may overwrite its own files. */
export const HTML_MARKER = '<!DOCTYPE html>\n<!-- mla-diff report -->';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);

const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-top:1px solid #ddd;padding-top:16px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px}dt{color:#666}dd{margin:0}
.agree,.pass{color:#2a9d4b;font-weight:600}.diverge,.fail{color:#c0392b;font-weight:600}
table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:14px 0}figcaption{color:#666;font-size:12px}`;

const row = (k: string, v: string | null | undefined) => (v ? `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>` : '');

function header(r: RunReport, c: CaseResult): string {
  const f = c.comparison.firstDivergence;
  const [top] = c.diagnosis ?? [];
  const origin = f && c.replay ? originOf(c.replay, f) : null;
  const faults = [...r.scenario.faults.mha.map((x) => `mha:${x}`), ...r.scenario.faults.mqa.map((x) => `mqa:${x}`)];
  return `<dl>${[
    row('scenario', `${r.scenario.name}${r.scenario.file ? ` (${r.scenario.file})` : ''}`),
    row('description', r.scenario.description),
    row('tokens', promptTokensLine(r.scenario, 600)),
    row('case', `${c.trace.name} (${c.trace.label})`),
    row('device', r.device.description),
    row('tool', `${r.tool.name} ${r.tool.version}, ${r.created}`),
    row('planted faults', faults.join(', ')),
    row('outcome', outcomeText(r, c)),
    row(
      'first divergence',
      f
        ? `${recordLabel(f)}, step ${f.step}, request ${f.request} (${f.verdict}; rel err ${err(f.relErr)}, norm ratio ${num(f.normRatio)})`
        : 'none',
    ),
    row('culprit', f?.culprit),
    row('likely cause', top ? `${top.summary} (${top.evidence})` : null),
    row('replay', origin ? `the first divergence is ${origin} (${c.replay!.runs} re-run(s))` : null),
  ].join('')}</dl>`;
}

/** `divergence as declared (expect: diverge at logits, culprit mqa; met)`, or what missed, or `paths agree (nothing declared)`. */
function outcomeText(r: RunReport, c: CaseResult): string {
  const o = caseOutcomeOf(r, c);
  const e = r.scenario.expect;
  const said = e ? `expect: ${declaredText(e)}` : 'nothing declared';
  return `${outcomeWord(o, e && declaredText(e))}; ${said}; ${judgeText(r)}`;
}

/** The plotted piece's records: stage, verdict, worst pair, its error, the tolerance. */
function recordTable(c: CaseResult): string {
  const piece = focusPiece(c);
  if (!piece) return '';
  const rows = c.comparison.stages
    .filter((v) => samePiece(v, piece) && v.pairs.length)
    .map((v) => {
      const x = plottedPair(v);
      const colour = VERDICT_COLOURS[v.verdict];
      return (
        `<tr><td>${escapeHtml(recordLabel(v))}</td><td style="color:${colour}">${escapeHtml(v.verdict)}</td>` +
        `<td>${escapeHtml(x ? `${x.a}↔${x.b}` : '—')}</td><td class="n">${escapeHtml(err(x?.relErr))}</td>` +
        `<td class="n">${escapeHtml(err(judgedTolerance(v)))}</td><td>${escapeHtml(v.culprit ?? '')}</td></tr>`
      );
    });
  return (
    '<table><tr><th>record</th><th>verdict</th><th>worst pair</th><th>rel err</th><th>tolerance</th><th>culprit</th></tr>' +
    `${rows.join('')}</table>`
  );
}

const figure = (svg: string, caption: string) => `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
const droppedNote = (n: number, what: string) => (n ? ` ${n} ${what} not drawn (0 or not finite on a log scale).` : '');

async function caseSection(r: RunReport, c: CaseResult): Promise<string> {
  const piece = focusPiece(c);
  const o = caseOutcomeOf(r, c); // the one rule: src/harness/compare/outcome.ts
  const e = r.scenario.expect;
  const parts = [
    `<h2>${escapeHtml(`${r.scenario.name} · case ${c.trace.name}`)} ` +
      `<span class="${o.outcome}">${escapeHtml(outcomeWord(o, e && declaredText(e)))}</span></h2>`,
    header(r, c),
  ];
  if (piece) {
    const which =
      `step ${piece.step}, request ${piece.request} ` +
      `(${pieceLabel(piece)}, ${c.comparison.firstDivergence ? 'the first divergent piece' : 'the last piece'})`;
    const norms = normRows(c, piece);
    parts.push(
      figure(
        await renderSvg(normSpec(norms.rows, { text: '‖x‖ per stage of each path', subtitle: which })),
        `L2 norm of each path's tensor at each stage.${droppedNote(norms.dropped, 'record(s)')}`,
      ),
    );
    const errs = errRows(c, piece);
    parts.push(
      figure(
        await renderSvg(errSpec(errs.rows, { text: 'Relative error per stage against its tolerance', subtitle: which })),
        "Each record's worst pair of paths (points, coloured by verdict) against the record's tolerance (dashed)." +
          droppedNote(errs.dropped, 'exact or unmeasured record(s)'),
      ),
    );
  }
  const heads = headRows(c);
  if (heads) {
    parts.push(
      figure(
        await renderSvg(
          headSpec(heads.rows, { text: 'Per-head and per-token error at the first divergent record', subtitle: heads.title }),
        ),
        `‖a − b‖ / max(‖a‖, ‖b‖) per head and per query token.${droppedNote(heads.dropped, 'value(s)')}`,
      ),
    );
  }
  parts.push(recordTable(c));
  return `<section>${parts.join('\n')}</section>`;
}

/** Every run's every case on one page. */
export async function renderHtml(reports: RunReport[]): Promise<string> {
  const sections: string[] = [];
  for (const r of reports) for (const c of r.cases) sections.push(await caseSection(r, c));
  const pass = reports.every((r) => r.outcome === 'pass');
  const title = `mla-diff report: ${reports.map((r) => r.scenario.name).join(', ')}`;
  const summary = reports.map((r) => `<p class="${r.outcome}">${escapeHtml(runOutcomeText(r))}</p>`).join('\n');
  return (
    `${HTML_MARKER}\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${CSS}</style></head>\n` +
    `<body><h1>${escapeHtml(title)} <span class="${pass ? 'pass' : 'fail'}">${pass ? 'PASS' : 'FAIL'}</span></h1>\n${summary}\n` +
    `${sections.join('\n')}\n</body></html>\n`
  );
}
