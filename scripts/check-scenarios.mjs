// Runs each scenario through the built CLI and checks it against the outcome it declares under
// `expect:` under mla-diff's one rule: a scenario whose declared outcome is met (agreement, or the declared first
// divergence and culprit; with compare_weights:, the declared outcome across the two weight sources too) exits 0 and
// its report says outcome pass; one that misses it exits 1.
// It also writes, from the same JSON reports, a JUnit XML file and a Markdown summary into
// $MLA_DIFF_CI_REPORTS (default out/ci/, git-ignored): junit.xml, summary.md; the summary is
// appended to $GITHUB_STEP_SUMMARY when that is set.
// Usage: node scripts/check-scenarios.mjs scenarios/*.yaml [-- extra mla-diff run flags]
// With MLA_DIFF_HTML_DIR set, each scenario's HTML report is written there as NAME.html.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
// the CLI: the bin of the mla-diff package (package.json "bin")
const cli = join(dirname(require.resolve('mla-diff/package.json')), require('mla-diff/package.json').bin['mla-diff']);
const api = require('mla-diff');
const { renderJUnit, renderMarkdown } = api;
const reportsDir = process.env.MLA_DIFF_CI_REPORTS || fileURLToPath(new URL('../out/ci/', import.meta.url));
const reports = [];
const errors = [];
const dash = process.argv.indexOf('--');
const files = process.argv.slice(2, dash < 0 ? undefined : dash);
const extra = dash < 0 ? [] : process.argv.slice(dash + 1);
const htmlDir = process.env.MLA_DIFF_HTML_DIR;
if (htmlDir) mkdirSync(htmlDir, { recursive: true });
const htmlFlags = (file) => (htmlDir ? ['--html', join(htmlDir, `${basename(file, '.yaml')}.html`)] : []);
let failed = 0;
for (const file of files) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [cli, 'run', file, '--format', 'json', ...htmlFlags(file), ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const secs = ((performance.now() - t) / 1000).toFixed(1);
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    report = null;
  }
  const problems = [];
  if (!report) {
    problems.push(`no JSON report (exit ${r.status}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
    errors.push({ scenario: file, message: problems[0] });
  } else {
    reports.push(report);
    const expect = report.scenario.expect;
    if (!expect) problems.push('declares no `expect:` outcome');
    else {
      if (r.status !== 0) problems.push(`exit ${r.status}, expected 0 (its declared outcome met)`);
      if (report.outcome !== 'pass') problems.push(`report outcome ${report.outcome}, expected pass`);
      for (const c of report.cases)
        if (!c.expectation?.met) problems.push(`case ${c.trace.name}: ${c.expectation?.misses.join('; ') ?? 'not checked'}`);
      if (expect.weights && !report.weights?.expectation?.met)
        problems.push(`weights: ${report.weights?.expectation?.misses.join('; ') ?? 'not checked (no compare_weights run)'}`);
    }
  }
  if (problems.length) failed++;
  const device = report?.device?.name ?? '?';
  console.log(
    `${problems.length ? 'FAIL' : 'ok  '} ${file} (${secs} s, ${device})${problems.length ? `\n     ${problems.join('\n     ')}` : ''}`,
  );
}
console.log(`${files.length - failed}/${files.length} scenarios met their declared outcome`);
mkdirSync(reportsDir, { recursive: true });
writeFileSync(join(reportsDir, 'junit.xml'), renderJUnit(reports, errors));
const summary = renderMarkdown(reports, errors);
writeFileSync(join(reportsDir, 'summary.md'), summary);
if (process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, summary);
console.log(`reports: ${join(reportsDir, 'junit.xml')}, ${join(reportsDir, 'summary.md')}`);
process.exit(failed ? 1 : 0);
